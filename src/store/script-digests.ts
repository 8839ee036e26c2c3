/**
 * Which script the page's stored episodes of a scripted coder were run with. A scripted model is named by its
 * script's file name (`scripted:fix.json`, as `recode run` names it), and the page keeps episodes by model id: a
 * second script of the same file name would resume the first one's episodes, reuse its turn 0, and be counted in
 * the results as the same model. So the page keeps, for each scripted model id whose episodes it stores, the
 * SHA-256 of the script's text (the `settings` store, key `scripts`), as `recode run` keeps it in run.json
 * (`scriptSha256`), and refuses to run another text under that id while episodes of the first are stored.
 */
import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex, utf8ToBytes } from "@noble/hashes/utils.js";
import { type KeyValueStore, readRecord } from "./kv";
import { RecordError } from "./records";

/** Current version of the `scripts` record. */
export const SCRIPT_DIGESTS_VERSION = 1;

/** The `scripts` record of the `settings` store. */
export interface ScriptDigestsRecord {
  version: typeof SCRIPT_DIGESTS_VERSION;
  /** Scripted model id (`scripted:<file name>`) -> SHA-256 (hex) of the script text its stored episodes ran with. */
  digests: Record<string, string>;
}

/** SHA-256 (hex, 64 characters) of a script's text, as `recode run` takes it of the script file (UTF-8). */
export function scriptSha256(text: string): string {
  return bytesToHex(sha256(utf8ToBytes(text)));
}

/**
 * Read the `scripts` record.
 * @throws RecordError naming the field when it is not a record of version 1 mapping model ids to hex digests.
 */
export function restoreScriptDigests(raw: unknown): ScriptDigestsRecord {
  const rec = raw as { version?: unknown; digests?: unknown } | null;
  if (typeof rec !== "object" || rec === null || rec.version !== SCRIPT_DIGESTS_VERSION)
    throw new RecordError("settings", "scripts", `not a scripts record of version ${SCRIPT_DIGESTS_VERSION}`);
  if (typeof rec.digests !== "object" || rec.digests === null || Array.isArray(rec.digests))
    throw new RecordError("settings", "scripts", "field digests is not an object");
  const digests: Record<string, string> = {};
  for (const [model, digest] of Object.entries(rec.digests)) {
    if (typeof digest !== "string" || !/^[0-9a-f]{64}$/.test(digest))
      throw new RecordError("settings", "scripts", `field digests.${model} is not a SHA-256 in hex`);
    digests[model] = digest;
  }
  return { version: SCRIPT_DIGESTS_VERSION, digests };
}

/** The model id a stored episode's or turn 0's key starts with (trajectoryKey, turn0Key, turn0PartialKey). */
function modelOfKey(key: string): string | null {
  try {
    const parts = JSON.parse(key.startsWith("partial:") ? key.slice("partial:".length) : key) as unknown;
    return Array.isArray(parts) && typeof parts[0] === "string" ? parts[0] : null;
  } catch {
    return null;
  }
}

/** The script digests of scripted coders whose episodes the page stores. */
export class ScriptDigestRepository {
  constructor(private readonly kv: KeyValueStore) {}

  /** The stored record, or an empty one (an unreadable record is set aside first, as every record is). */
  private async read(): Promise<ScriptDigestsRecord> {
    const r = await readRecord(this.kv, "settings", "scripts", restoreScriptDigests, "the check of scripted coders starts over");
    return r.value ?? { version: SCRIPT_DIGESTS_VERSION, digests: {} };
  }

  /** Whether any episode, shared turn 0 or partial turn 0 of coder `model` is stored. */
  private async stored(model: string): Promise<boolean> {
    for (const store of ["trajectories", "turn0"] as const) {
      for (const { key } of await this.kv.entries(store)) if (modelOfKey(key) === model) return true;
    }
    return false;
  }

  /**
   * Before episodes of scripted coder `model` (`scripted:<file name>`) run with the script `text`: null when they
   * may (no episode of `model` is stored, or those stored ran with this text, or were stored before the page kept
   * digests: they are then taken as this text's, as `recode run` takes a folder written before `scriptSha256`), and
   * the text's digest is kept for `model`; else a message saying that the stored episodes ran with another text of
   * that file name, with both digests (first 12 hex digits), and what to do.
   * @throws StorageError when the store cannot be read or written.
   */
  async claim(model: string, text: string): Promise<string | null> {
    const digest = scriptSha256(text);
    const rec = await this.read();
    const kept = rec.digests[model];
    if (kept === digest) return null;
    if (kept !== undefined && (await this.stored(model))) {
      return `The stored episodes of ${model} ran with another script of that file name (its text, by SHA-256: ${kept.slice(0, 12)}…; this script: ${digest.slice(0, 12)}…), and would be resumed and counted as this one's. Give this script another file name, or delete the episodes of ${model} (Results) first.`;
    }
    await this.kv.put("settings", "scripts", { version: SCRIPT_DIGESTS_VERSION, digests: { ...rec.digests, [model]: digest } });
    return null;
  }
}
