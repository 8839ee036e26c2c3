/**
 * The editor as the task view uses it: Monaco (CodeEditor.tsx, the largest
 * part of the page) in its own chunk, fetched by {@link preloadEditor} as soon
 * as the page starts and shown with a loading line until it arrives.
 */
import { lazy, Suspense } from "react";
import type { CodeEditorProps } from "./CodeEditor";

let loading: Promise<typeof import("./CodeEditor")> | null = null;

/** Start fetching the editor (Monaco) now; resolves with its module. Safe to call many times. */
export function preloadEditor(): Promise<typeof import("./CodeEditor")> {
  loading ??= import("./CodeEditor");
  return loading;
}

const Editor = lazy(async () => ({ default: (await preloadEditor()).CodeEditor }));

/** URI of the model for a task's target file. */
export function modelPath(taskId: string, targetPath: string): string {
  return `file:///${taskId}/${targetPath}`;
}

/** {@link CodeEditor} once its chunk is loaded; "Loading editor…" until then. */
export function LazyCodeEditor(props: CodeEditorProps) {
  return (
    <Suspense fallback={<div className="editor-loading">Loading editor…</div>}>
      <Editor {...props} />
    </Suspense>
  );
}
