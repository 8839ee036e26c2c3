/**
 * What to say of a process that died, from what it wrote on its standard
 * error: its last error lines (`Error [ERR_MODULE_NOT_FOUND]: Cannot find
 * package ...`), not the blank line and the Node version a crash ends with.
 */

/**
 * The last `count` lines of `stderr` that name an error, else its last `count` non-empty lines, joined by
 * spaces; the version line Node prints after an uncaught error is left out. "" when nothing is left.
 */
export function errorTail(stderr: string, count = 2): string {
  const lines = stderr
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l !== "" && !/^Node\.js v\d/.test(l));
  const errors = lines.filter((l) => /^(\w+Error|Error)\b|\berror:/i.test(l));
  return (errors.length > 0 ? errors : lines).slice(-count).join(" ");
}
