/** Bad usage or input of a command: the message says what to fix (exit code 2). */
export class CommandInputError extends Error {}
