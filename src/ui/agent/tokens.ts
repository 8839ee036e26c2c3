/** How the page says that token sums are a lower bound: `n` calls had no counts from their server. "" when n is 0. */
export function unreportedNote(n: number): string {
  return n > 0 ? ` (at least: ${n} call${n === 1 ? "" : "s"} without token counts)` : "";
}
