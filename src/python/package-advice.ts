/**
 * What a task's package that could not be loaded tells the user to do. The worker ends its message with
 * {@link PACKAGE_ADVICE}; a host that knows better (the CLI names its options) puts its own in its place
 * (`PyodideRuntimeOptions.packageAdvice`).
 */

/** The worker's advice, where no other is given: the page's Settings hold the package source. */
export const PACKAGE_ADVICE = "Set the package source to a folder or URL that holds the wheels.";
