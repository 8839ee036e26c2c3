/**
 * The event channel's lines, authenticated. Code under test can write to the
 * channel the harness reports on (natively the descriptor is inherited; in
 * Pyodide the event device can be opened again), so a line's origin cannot
 * come from the channel. Each run has a key the host makes and hands the
 * harness alone (natively on its standard input, read before any code under
 * test runs; in Pyodide as an argument of `run_json`); the harness writes
 * `MAC TEXT` lines (harness.py `event_writer`), the MAC being the first
 * {@link EVENT_MAC_BYTES} bytes of HMAC-SHA256 under the key of the line's
 * number and a space and the text. A line without the right MAC, or out of
 * order, is replaced by a {@link FORGED_LINE}: the run is not trusted. A
 * line may hold several events, apart by {@link EVENT_SEPARATOR} (the harness
 * writes a test's outcomes and checks with its result, in one line).
 */

import { hmac } from "@noble/hashes/hmac.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { FORGED_LINE } from "./forged-line";

/** Bytes of a run's key. */
export const EVENT_KEY_BYTES = 32;
/** Bytes of a line's MAC kept (harness.py `EVENT_MAC_BYTES`); written as twice as many hex digits. */
export const EVENT_MAC_BYTES = 16;

/** HMAC-SHA256 of `data` under `key` (32 bytes). */
export type HmacSha256 = (key: Uint8Array, data: Uint8Array) => Uint8Array;

/** HMAC-SHA256 in plain JavaScript (the page's worker has no synchronous one of its own). */
export const hmacSha256: HmacSha256 = (key, data) => hmac(sha256, key, data);

/** A fresh random key for one run. */
export function newEventKey(): Uint8Array {
  return globalThis.crypto.getRandomValues(new Uint8Array(EVENT_KEY_BYTES));
}

/** Lower-case hex of `bytes`. */
export function toHex(bytes: Uint8Array): string {
  let out = "";
  for (const b of bytes) out += b.toString(16).padStart(2, "0");
  return out;
}

/**
 * Between the events of one line (harness.py `EVENT_SEPARATOR`, ASCII's record separator): the harness's
 * event encoder escapes every control character, so no event's text holds it.
 */
export const EVENT_SEPARATOR = "\x1e";

const encoder = new TextEncoder();

/** Checks one run's lines in order: each must carry the MAC of its number (from 0) and its text. */
export class EventVerifier {
  private seq = 0;

  /**
   * @param key the run's key, as handed to the harness.
   * @param mac HMAC-SHA256 ({@link hmacSha256}, or Node's own where it runs in Node).
   */
  constructor(
    private readonly key: Uint8Array,
    private readonly mac: HmacSha256 = hmacSha256,
  ) {}

  /**
   * The text of `line` (without its newline) when the harness wrote it, as the next line of the run; else
   * {@link FORGED_LINE} (and the line's number is not used up: the harness's next line still counts).
   */
  open(line: string): string {
    const space = line.indexOf(" ");
    if (space !== EVENT_MAC_BYTES * 2) return FORGED_LINE;
    const text = line.slice(space + 1);
    const want = toHex(this.mac(this.key, encoder.encode(`${this.seq} ${text}`)).subarray(0, EVENT_MAC_BYTES));
    if (line.slice(0, space) !== want) return FORGED_LINE;
    this.seq += 1;
    return text;
  }

  /**
   * The events of `line`, in order, when the harness wrote it as the next line of the run (see {@link open});
   * else one {@link FORGED_LINE}.
   */
  events(line: string): string[] {
    return this.open(line).split(EVENT_SEPARATOR);
  }
}
