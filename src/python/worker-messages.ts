/**
 * The shape check of what a Pyodide worker sends its host. A worker runs
 * candidate code, so its messages are data to check, not to trust: anything
 * that is not one of the {@link FromWorker} messages, field for field, is
 * dropped before the host's runtime sees it.
 */
import { z } from "zod";
import type { FileRequest } from "./box-protocol";
import type { FromWorker } from "./worker-core";

const runId = z.number().int().nonnegative();

const fromWorker = z.discriminatedUnion("type", [
  z.object({ type: z.literal("ready"), version: z.string(), fromSnapshot: z.boolean() }).strict(),
  z.object({ type: z.literal("snapshot"), bytes: z.instanceof(Uint8Array) }).strict(),
  z.object({ type: z.literal("init-error"), message: z.string() }).strict(),
  z.object({ type: z.literal("accepted"), runId }).strict(),
  z.object({ type: z.literal("tainted"), runId, message: z.string() }).strict(),
  z.object({ type: z.literal("started"), runId }).strict(),
  z.object({ type: z.literal("events"), runId, events: z.array(z.string()) }).strict(),
  z.object({ type: z.literal("done"), runId, memoryBytes: z.number().nonnegative(), tainted: z.string() }).strict(),
  z.object({ type: z.literal("packages-error"), runId, message: z.string() }).strict(),
  z.object({ type: z.literal("failed"), runId, message: z.string(), fatal: z.boolean() }).strict(),
  z.object({ type: z.literal("closing") }).strict(),
]) satisfies z.ZodType<FromWorker>;

const fileRequest = z.object({ type: z.literal("need-file"), url: z.string() }).strict() satisfies z.ZodType<FileRequest>;

/** `msg` when it is a well-formed {@link FromWorker} message, else null. */
export function parseFromWorker(msg: unknown): FromWorker | null {
  const r = fromWorker.safeParse(msg);
  return r.success ? r.data : null;
}

/** `msg` when it is a well-formed {@link FileRequest}, else null. */
export function parseFileRequest(msg: unknown): FileRequest | null {
  const r = fileRequest.safeParse(msg);
  return r.success ? r.data : null;
}
