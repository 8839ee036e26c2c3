/**
 * Monaco from the local bundle: the editor never reaches a CDN. Import this
 * module once, before any editor renders.
 */
import { loader } from "@monaco-editor/react";
import * as monaco from "monaco-editor";
import EditorWorker from "monaco-editor/editor/editor.worker?worker";

(self as unknown as { MonacoEnvironment: { getWorker: () => Worker } }).MonacoEnvironment = { getWorker: () => new EditorWorker() };
loader.config({ monaco });
// Exposed for end-to-end tests and for debugging from the console.
(window as unknown as { monaco: typeof monaco }).monaco = monaco;

export { monaco };
