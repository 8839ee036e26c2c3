/** The page's keyboard shortcuts, as the settings dialog lists them (the handlers are where the action is). */
export const SHORTCUTS: readonly { keys: string; does: string }[] = [
  { keys: "Ctrl/Cmd+Enter", does: "Run the tests (in the editor or anywhere on a task)" },
  { keys: "Alt+Z", does: "Wrap long lines in the editor, or stop wrapping them" },
  { keys: "Ctrl/Cmd+B", does: "Show or hide the task list" },
  { keys: "Ctrl/Cmd+,", does: "Open the settings" },
  { keys: "Escape", does: "Close the settings" },
];
