/**
 * Pyodide's pipes hold at most what a Linux pipe holds. Emscripten's pipes
 * (`os.pipe()`) keep what is written and not yet read in JavaScript arrays,
 * outside the interpreter's memory cap and the scratch folders' byte budget
 * (file-watch.ts), with no limit: a run that wrote into a pipe it never read
 * held gigabytes of the worker's memory. A write that would take a pipe past
 * {@link PIPE_CAPACITY_BYTES} unread writes what fits, and a write into a full
 * pipe fails with `EAGAIN` (Python's `BlockingIOError`), where Linux would
 * block: with one thread nothing would ever read it.
 */

/** Bytes a pipe holds unread: Linux's default pipe capacity (pipe(7)). */
export const PIPE_CAPACITY_BYTES = 64 * 1024;
/** Emscripten's (WASI's) errno for "resource temporarily unavailable". */
const EAGAIN = 6;

/** What of Emscripten's PIPEFS the cap uses (its module exports it as `PIPEFS`). */
export interface PipeFs {
  stream_ops: Record<string, unknown>;
}

/** A pipe's buffer as PIPEFS keeps it: buckets, each written up to `offset` and read up to `roffset`. */
interface PipeNode {
  pipe?: { buckets?: { offset: number; roffset: number }[] };
}

/** Cap the pipes of `pipes` (once per instance): see the module's text. `errnoError` makes Emscripten's error for an errno. */
export function capPipes(pipes: PipeFs, errnoError: new (errno: number) => Error): void {
  const ops = pipes.stream_ops;
  const write = ops.write;
  if (typeof write !== "function") return;
  ops.write = (stream: { node?: PipeNode }, buffer: Uint8Array, offset: number, length: number, position: number) => {
    let unread = 0;
    for (const b of stream.node?.pipe?.buckets ?? []) unread += b.offset - b.roffset;
    const room = PIPE_CAPACITY_BYTES - unread;
    if (length > 0 && room <= 0) throw new errnoError(EAGAIN);
    return (write as (...a: unknown[]) => number).call(ops, stream, buffer, offset, Math.min(length, room), position);
  };
}
