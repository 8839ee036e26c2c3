/** Downloads the page starts: a text made in the page, saved as a file of the user's. */

/**
 * Start a download of `text` (UTF-8) as a file named `name`, of media type `type` (e.g. `text/csv`,
 * `application/json`).
 */
export function downloadText(name: string, text: string, type: string): void {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const a = document.createElement("a");
  a.href = url;
  a.download = name;
  a.click();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
