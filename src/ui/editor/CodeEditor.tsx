/** Monaco on the task's target file (Python), with run-result markers and Ctrl/Cmd+Enter. */
import Editor, { type OnMount } from "@monaco-editor/react";
import { useEffect, useRef, useState, useSyncExternalStore } from "react";
import { resolvedTheme, viewPrefs } from "../view-prefs";
import { type LineMarker, MARKER_OWNER } from "./markers";
import { monaco } from "./monaco";

/** What the task view can do with the editor. */
export interface EditorApi {
  /** Replace the whole text (undoable). */
  setText: (text: string) => void;
  getText: () => string;
  /** Put the cursor at the start of a 1-based line (clamped to the text), scroll it into view, and focus the editor. */
  revealLine: (line: number) => void;
}

/** Props of {@link CodeEditor}. */
export interface CodeEditorProps {
  /** Model path, e.g. `file:///min-p-sampling/decoding/min_p.py`; one model per task. */
  path: string;
  /** Text the model starts with when it does not exist yet. */
  initial: string;
  onChange: (code: string) => void;
  /** Ctrl/Cmd+Enter inside the editor. */
  onRun: () => void;
  markers: LineMarker[];
  /**
   * Receives the editor's API (replace the whole text, undoable, for Reset; read it; move to a line), or null
   * when the editor that gave it is gone (the plain editor once Monaco takes over, until Monaco gives its own).
   */
  onReady?: (api: EditorApi | null) => void;
  /** The text cannot be edited (a task the page cannot run). */
  readOnly?: boolean;
  /**
   * The plain editor's state when Monaco takes over from it (read when the editor first renders): its text
   * (in place of `initial`), where to put the cursor (an offset in the text) and whether to focus it.
   */
  startAt?: { text: string; cursor: number; focused: boolean };
}

export { modelPath } from "./LazyEditor";

/** Monaco editor bound to one model. */
export function CodeEditor({ path, initial, onChange, onRun, markers, onReady, readOnly = false, startAt }: CodeEditorProps) {
  const editorRef = useRef<monaco.editor.IStandaloneCodeEditor | null>(null);
  const runRef = useRef(onRun);
  runRef.current = onRun;
  const changeRef = useRef(onChange);
  changeRef.current = onChange;
  const [mounted, setMounted] = useState(0);
  const theme = useSyncExternalStore(resolvedTheme.subscribe, resolvedTheme.get);
  const { wordWrap } = useSyncExternalStore(viewPrefs.subscribe, viewPrefs.get);
  // The model is made here, before the editor, and its changes reach the draft from its first moment: the
  // editor itself is mounted a render later, and text set in between (then a reload) must not be lost.
  const modelRef = useRef<{ model: monaco.editor.ITextModel; sub: monaco.IDisposable } | null>(null);
  const watchModel = () => {
    if (modelRef.current?.model.uri.toString() === monaco.Uri.parse(path).toString()) return;
    modelRef.current?.sub.dispose();
    const uri = monaco.Uri.parse(path);
    const model = monaco.editor.getModel(uri) ?? monaco.editor.createModel(startAt?.text ?? initial, "python", uri);
    modelRef.current = { model, sub: model.onDidChangeContent(() => changeRef.current(model.getValue())) };
  };
  watchModel();
  // (Again after a cleanup that was not an unmount, as React's development checks do.)
  useEffect(() => {
    watchModel();
    return () => {
      modelRef.current?.sub.dispose();
      modelRef.current = null;
    };
  });

  const mount: OnMount = (editor, m) => {
    editorRef.current = editor;
    setMounted((n) => n + 1);
    const model = editor.getModel();
    // The model was made a moment before this editor showed: what the plain editor got since is put in.
    if (startAt && model && model.getValue() !== startAt.text) model.setValue(startAt.text);
    if (startAt && model && startAt.cursor > 0) editor.setPosition(model.getPositionAt(startAt.cursor));
    if (startAt?.focused) editor.focus();
    editor.addCommand(m.KeyMod.CtrlCmd | m.KeyCode.Enter, () => runRef.current());
    onReady?.({
      setText: (text) => {
        const model = editor.getModel();
        if (!model) return;
        editor.pushUndoStop();
        editor.executeEdits("reset", [{ range: model.getFullModelRange(), text }]);
        editor.pushUndoStop();
      },
      getText: () => editor.getValue(),
      revealLine: (line) => {
        const model = editor.getModel();
        if (!model) return;
        const n = Math.min(Math.max(1, line), model.getLineCount());
        editor.revealLineInCenter(n);
        editor.setPosition({ lineNumber: n, column: model.getLineFirstNonWhitespaceColumn(n) || 1 });
        editor.focus();
      },
    });
  };

  useEffect(() => {
    if (mounted === 0) return;
    const model = monaco.editor.getModel(monaco.Uri.parse(path));
    if (!model) return;
    const max = model.getLineCount();
    monaco.editor.setModelMarkers(
      model,
      MARKER_OWNER,
      markers
        .filter((mk) => mk.line <= max)
        .map((mk) => ({
          severity: monaco.MarkerSeverity.Error,
          message: mk.message,
          startLineNumber: mk.line,
          startColumn: model.getLineFirstNonWhitespaceColumn(mk.line) || 1,
          endLineNumber: mk.line,
          endColumn: model.getLineMaxColumn(mk.line),
        })),
    );
  }, [markers, path, mounted]);

  return (
    <Editor
      path={path}
      defaultValue={startAt?.text ?? initial}
      defaultLanguage="python"
      theme={theme === "dark" ? "vs-dark" : "vs"}
      onMount={mount}
      loading={<div className="editor-loading">Loading editor…</div>}
      options={{
        minimap: { enabled: false },
        fontSize: 13,
        scrollBeyondLastLine: false,
        automaticLayout: true,
        tabSize: 4,
        insertSpaces: true,
        renderWhitespace: "selection",
        wordWrap: wordWrap ? "on" : "off",
        readOnly,
      }}
    />
  );
}
