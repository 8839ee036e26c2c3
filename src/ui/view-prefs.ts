/**
 * How the page looks, kept in this browser (localStorage, validated with zod):
 * the theme (the system's by default, or light or dark) and word wrap in the
 * editor. The theme is applied to the document as `data-theme` ("light" or
 * "dark") before the first render, and follows the system's setting while the
 * choice is "system". (Checked by hand, not with zod: this module is in the
 * page's first bundle.)
 */
import { Observable } from "./observable";

/** What the user picked: follow the system, or one theme always. */
export type ThemeChoice = "system" | "light" | "dark";

/** The page's view preferences. */
export interface ViewPrefs {
  theme: ThemeChoice;
  /** Long lines wrap in the editor instead of running past its edge. */
  wordWrap: boolean;
}

const KEY = "recode.view";
const DEFAULTS: ViewPrefs = { theme: "system", wordWrap: false };
const THEMES: readonly string[] = ["system", "light", "dark"];

function load(): ViewPrefs {
  try {
    const raw = JSON.parse(localStorage.getItem(KEY) ?? "{}") as Record<string, unknown>;
    return {
      theme: THEMES.includes(raw.theme as string) ? (raw.theme as ThemeChoice) : DEFAULTS.theme,
      wordWrap: typeof raw.wordWrap === "boolean" ? raw.wordWrap : DEFAULTS.wordWrap,
    };
  } catch {
    // Unreadable storage or a value from elsewhere: the defaults.
    return DEFAULTS;
  }
}

/** The preferences; change them with {@link setViewPrefs}. */
export const viewPrefs = new Observable<ViewPrefs>(load());

/** The theme in effect: the choice, or the system's when the choice is "system". */
export const resolvedTheme = new Observable<"light" | "dark">("light");

const dark = typeof matchMedia === "function" ? matchMedia("(prefers-color-scheme: dark)") : null;

function apply(): void {
  const { theme } = viewPrefs.get();
  const t = theme === "system" ? (dark?.matches ? "dark" : "light") : theme;
  if (typeof document !== "undefined") {
    document.documentElement.dataset.theme = t;
    document.documentElement.style.colorScheme = t;
  }
  if (resolvedTheme.get() !== t) resolvedTheme.set(t);
}

/** Change some preferences; saved at once (a storage that refuses keeps them for this visit). */
export function setViewPrefs(change: Partial<ViewPrefs>): void {
  const next = { ...viewPrefs.get(), ...change };
  viewPrefs.set(next);
  try {
    localStorage.setItem(KEY, JSON.stringify(next));
  } catch {
    // kept in memory for this visit
  }
  apply();
}

dark?.addEventListener("change", apply);
apply();
