/** Whether the page is narrow (below 900 px): the task view is then tabs (Task, Code, Results), one scroll area each. */
import { useSyncExternalStore } from "react";

/** The media query of a narrow page. */
export const NARROW_QUERY = "(max-width: 899px)";

const query = typeof matchMedia === "function" ? matchMedia(NARROW_QUERY) : null;
const subscribe = (cb: () => void) => {
  query?.addEventListener("change", cb);
  return () => query?.removeEventListener("change", cb);
};

/** True while the page is narrower than 900 px; re-renders when that changes. */
export function useNarrow(): boolean {
  return useSyncExternalStore(subscribe, () => query?.matches ?? false);
}
