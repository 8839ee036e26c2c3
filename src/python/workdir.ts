/**
 * The run folder inside the Pyodide interpreter, known to both sides: the
 * worker writes the run's files there and the host names it in the harness's
 * configuration. Its own module, so that the host's code (and the page's
 * first load) does not take in the worker's.
 */

/** The run folder inside the interpreter: one fixed path, emptied after every run. */
export const WORKDIR = "/tmp/recode-run";
