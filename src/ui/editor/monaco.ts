/**
 * Monaco from the local bundle: the editor never reaches a CDN. Import this
 * module once, before any editor renders.
 *
 * Only what the page uses is bundled: the editor core (`editor.api`), the
 * Python tokenizer, the editor worker, and the editor features the page
 * relies on: markers of a run with their hover and F8 navigation, find, and
 * everyday editing (comments, brackets, indentation, line and word
 * operations, multi-cursor, folding, clipboard, context menu). The other
 * languages and the TypeScript/CSS/HTML/JSON language services of the full
 * `monaco-editor` entry are left out.
 */
import { loader } from "@monaco-editor/react";
import * as monaco from "monaco-editor/editor/editor.api";
import "monaco-editor/languages/definitions/python/register";
import "monaco-editor/features/codicon/register";
import "monaco-editor/features/hover/register";
import "monaco-editor/features/gotoError/register";
import "monaco-editor/features/find/register";
import "monaco-editor/features/comment/register";
import "monaco-editor/features/bracketMatching/register";
import "monaco-editor/features/indentation/register";
import "monaco-editor/features/linesOperations/register";
import "monaco-editor/features/wordOperations/register";
import "monaco-editor/features/multicursor/register";
import "monaco-editor/features/folding/register";
import "monaco-editor/features/clipboard/register";
import "monaco-editor/features/contextmenu/register";
import "monaco-editor/features/cursorUndo/register";
import EditorWorker from "monaco-editor/editor/editor.worker?worker";

(self as unknown as { MonacoEnvironment: { getWorker: () => Worker } }).MonacoEnvironment = { getWorker: () => new EditorWorker() };
loader.config({ monaco });
// Exposed for end-to-end tests and for debugging from the console.
(window as unknown as { monaco: typeof monaco }).monaco = monaco;

export { monaco };
