/**
 * The editor as the task view uses it: Monaco (CodeEditor.tsx, the largest
 * part of the page) in its own chunk, fetched by {@link preloadEditor} as soon
 * as the page starts. Until it arrives the plain editor (PlainEditor.tsx) is
 * shown on the same draft, so the page can be typed in from its first render;
 * Monaco then takes over with the text and the cursor where they are.
 */
import { lazy, Suspense, useRef } from "react";
import type { CodeEditorProps } from "./CodeEditor";
import { PlainEditor, type PlainState } from "./PlainEditor";

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

/** {@link CodeEditor} once its chunk is loaded; the plain editor on the same text until then. */
export function LazyCodeEditor(props: CodeEditorProps) {
  // One state per editor place: what the plain editor holds when Monaco takes over.
  const plain = useRef<PlainState>({ text: props.initial, cursor: 0, focused: false });
  const state = plain.current;
  // The text as either editor last changed it: Monaco's model is made before it is shown, and a change to
  // it then (or a key typed into the plain editor then) must not be lost when Monaco takes over.
  const onChange = (code: string) => {
    state.text = code;
    props.onChange(code);
  };
  return (
    <Suspense fallback={<PlainEditor {...props} onChange={onChange} state={state} />}>
      <Editor {...props} onChange={onChange} startAt={state} />
    </Suspense>
  );
}
