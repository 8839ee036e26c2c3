/**
 * The editor before Monaco arrives: a plain text area on the same draft, usable
 * from the page's first render (Monaco is the largest part of the page and
 * follows a second or so later, see LazyEditor.tsx). It keeps Python's
 * indentation (Tab and Shift+Tab indent and dedent by four spaces, Enter keeps
 * the line's indentation and adds a level after a colon) and Ctrl/Cmd+Enter
 * runs the tests. When Monaco takes over it gets this text and the cursor.
 */
import { type KeyboardEvent, useEffect, useRef, useSyncExternalStore } from "react";
import { viewPrefs } from "../view-prefs";
import type { CodeEditorProps } from "./CodeEditor";

const INDENT = "    ";

/** Where the plain editor left off, for Monaco to carry on: the text (as either editor last changed it) and the cursor (an offset in it). */
export interface PlainState {
  text: string;
  cursor: number;
  focused: boolean;
}

/** Props: the editor's, and `state`, which the plain editor keeps current as the user types. */
export function PlainEditor({
  initial,
  onChange,
  onRun,
  onReady,
  readOnly = false,
  state,
}: Pick<CodeEditorProps, "initial" | "onChange" | "onRun" | "onReady" | "readOnly"> & { state: PlainState }) {
  const ref = useRef<HTMLTextAreaElement | null>(null);
  const { wordWrap } = useSyncExternalStore(viewPrefs.subscribe, viewPrefs.get);
  // The cursor and focus, for Monaco to carry on with (the text reaches `state` through onChange).
  const note = (el: HTMLTextAreaElement) => {
    state.cursor = el.selectionStart;
    state.focused = document.activeElement === el;
  };
  const set = (el: HTMLTextAreaElement, text: string, cursor: number) => {
    el.value = text;
    el.setSelectionRange(cursor, cursor);
    note(el);
    onChange(text);
  };
  // biome-ignore lint/correctness/useExhaustiveDependencies: once; the text area keeps its own value, and Monaco's editor replaces this API when it mounts
  useEffect(() => {
    onReady?.({
      setText: (text) => {
        if (ref.current) set(ref.current, text, 0);
      },
      getText: () => state.text,
      revealLine: (line) => {
        const el = ref.current;
        if (!el) return;
        const lines = el.value.split("\n");
        const n = Math.min(Math.max(1, line), lines.length);
        const at = lines.slice(0, n - 1).reduce((sum, l) => sum + l.length + 1, 0);
        el.focus();
        el.setSelectionRange(at, at);
        // Scroll the line into view: its share of the text's height.
        el.scrollTop = Math.max(0, ((n - 1) / lines.length) * el.scrollHeight - el.clientHeight / 2);
        note(el);
      },
    });
    // Gone (Monaco takes over): the text is the draft's until Monaco gives its own API.
    return () => onReady?.(null);
  }, []);

  const onKeyDown = (e: KeyboardEvent<HTMLTextAreaElement>) => {
    const el = e.currentTarget;
    if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) {
      e.preventDefault();
      onRun();
      return;
    }
    if (readOnly) return;
    const { value, selectionStart: start, selectionEnd: end } = el;
    const lineStart = value.lastIndexOf("\n", start - 1) + 1;
    if (e.key === "Tab") {
      e.preventDefault();
      if (e.shiftKey) {
        const n = /^ {1,4}/.exec(value.slice(lineStart))?.[0].length ?? 0;
        set(el, value.slice(0, lineStart) + value.slice(lineStart + n), Math.max(lineStart, start - n));
      } else set(el, value.slice(0, start) + INDENT + value.slice(end), start + INDENT.length);
    } else if (e.key === "Enter" && !e.shiftKey && !e.altKey) {
      e.preventDefault();
      const line = value.slice(lineStart, start);
      const indent = (/^[ \t]*/.exec(line)?.[0] ?? "") + (/:\s*(#.*)?$/.test(line) ? INDENT : "");
      set(el, `${value.slice(0, start)}\n${indent}${value.slice(end)}`, start + 1 + indent.length);
    }
  };

  return (
    <textarea
      ref={ref}
      className="plain-editor"
      data-testid="plain-editor"
      data-editor-usable=""
      aria-label="Code (plain editor; the full editor is loading)"
      spellCheck={false}
      autoCapitalize="off"
      autoComplete="off"
      wrap={wordWrap ? "soft" : "off"}
      readOnly={readOnly}
      defaultValue={initial}
      onChange={(e) => {
        note(e.currentTarget);
        onChange(e.currentTarget.value);
      }}
      onSelect={(e) => note(e.currentTarget)}
      onFocus={(e) => note(e.currentTarget)}
      onBlur={(e) => note(e.currentTarget)}
      onKeyDown={onKeyDown}
    />
  );
}
