/**
 * `n word` with an English plural: `plural(1, "task")` is "1 task", `plural(2, "task")` "2 tasks";
 * `many` for a word whose plural is not the word and "s" (`plural(2, "folder of tasks", "folders of tasks")`).
 */
export function plural(n: number, word: string, many = `${word}s`): string {
  return `${n} ${n === 1 ? word : many}`;
}
