/** Monaco on the task's target file (Python), with run-result markers and Ctrl/Cmd+Enter. */
import Editor, { type OnMount } from "@monaco-editor/react";
import { useEffect, useRef, useState } from "react";
import { type LineMarker, MARKER_OWNER } from "./markers";
import { monaco } from "./monaco";

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
  /** Receives a function that replaces the whole text (undoable), for Reset. */
  onReady?: (api: { setText: (text: string) => void; getText: () => string }) => void;
  /** The text cannot be edited (a task the page cannot run). */
  readOnly?: boolean;
}

export { modelPath } from "./LazyEditor";

/** Monaco editor bound to one model. */
export function CodeEditor({ path, initial, onChange, onRun, markers, onReady, readOnly = false }: CodeEditorProps) {
  const editorRef = useRef<monaco.editor.IStandaloneCodeEditor | null>(null);
  const runRef = useRef(onRun);
  runRef.current = onRun;
  const changeRef = useRef(onChange);
  changeRef.current = onChange;
  const [mounted, setMounted] = useState(0);

  const mount: OnMount = (editor, m) => {
    editorRef.current = editor;
    setMounted((n) => n + 1);
    editor.addCommand(m.KeyMod.CtrlCmd | m.KeyCode.Enter, () => runRef.current());
    // Changes reach the draft from here on; one made between the model's creation and this call (the page
    // may have been busy rendering what loaded meanwhile) is passed on now. Disposed with the editor.
    editor.onDidChangeModelContent(() => changeRef.current(editor.getValue()));
    if (editor.getValue() !== initial) changeRef.current(editor.getValue());
    onReady?.({
      setText: (text) => {
        const model = editor.getModel();
        if (!model) return;
        editor.pushUndoStop();
        editor.executeEdits("reset", [{ range: model.getFullModelRange(), text }]);
        editor.pushUndoStop();
      },
      getText: () => editor.getValue(),
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
      defaultValue={initial}
      defaultLanguage="python"
      theme="vs"
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
        readOnly,
      }}
    />
  );
}
