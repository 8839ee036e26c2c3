/**
 * A paper's authors in a line of a task list, as the page's task list and `recode tasks list` both write them:
 * "Ada Lovelace", "Ada Lovelace and Alan Turing", "Ada Lovelace et al." (three or more). Empty for none.
 */
export function authorsShort(authors: readonly string[]): string {
  if (authors.length > 2) return `${authors[0]} et al.`;
  return authors.join(" and ");
}
