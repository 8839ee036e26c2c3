/** What kind of build the page is (set by vite.config.ts at build time). */

declare const __RECODE_STUDENT__: boolean | undefined;

/**
 * Whether this is a student build (`npm run build -- --student`): the tasks'
 * canonical solutions are not in it, so L4 (the direct code correction) is
 * unavailable everywhere in the page (docs/teaching.md).
 */
export const STUDENT_BUILD: boolean = typeof __RECODE_STUDENT__ !== "undefined" && __RECODE_STUDENT__ === true;
