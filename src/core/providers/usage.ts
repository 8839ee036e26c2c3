/**
 * Per-call accounting shared by every provider: tokens and latency of each
 * chat call, and running totals (for cost lines in reports and the UI).
 */
import type { ChatModel, TokenUsage } from "../model";

/** What one finished chat call cost. */
export interface CallRecord {
  /** Prompt and completion tokens (`unreported` when the provider did not report them). */
  usage: TokenUsage;
  /** Wall time of the call including retries, in milliseconds. */
  latencyMs: number;
  /** Retries spent on this call (0 when the first attempt succeeded). */
  retries: number;
}

/** Running totals over the calls of one model instance. */
export interface UsageTotals {
  /** Number of successful calls. */
  calls: number;
  /** Number of calls that ended in a ModelError. */
  failures: number;
  promptTokens: number;
  completionTokens: number;
  /** Calls whose server reported no token counts (the sums above are a lower bound). */
  unreported: number;
  /** Sum of call wall times, in milliseconds. */
  latencyMs: number;
  /** Retries over all calls. */
  retries: number;
}

/** A {@link ChatModel} that keeps per-call records and totals. All providers in this folder return one. */
export interface MeteredChatModel extends ChatModel {
  /** Totals since creation (a copy). */
  totals(): UsageTotals;
  /** Records of the successful calls, oldest first (a copy). */
  calls(): CallRecord[];
}

/** Optional hook every provider accepts: called after each successful call. */
export type OnCall = (record: CallRecord) => void;

/** Mutable meter behind {@link MeteredChatModel}. */
export class UsageMeter {
  private readonly records: CallRecord[] = [];
  private failed = 0;

  constructor(private readonly onCall?: OnCall) {}

  /** Record a successful call. */
  success(record: CallRecord): void {
    this.records.push(record);
    this.onCall?.(record);
  }

  /** Record a call that failed for good. */
  failure(): void {
    this.failed += 1;
  }

  totals(): UsageTotals {
    const t: UsageTotals = {
      calls: 0,
      failures: this.failed,
      promptTokens: 0,
      completionTokens: 0,
      unreported: 0,
      latencyMs: 0,
      retries: 0,
    };
    for (const r of this.records) {
      t.calls += 1;
      t.promptTokens += r.usage.promptTokens;
      t.completionTokens += r.usage.completionTokens;
      if (r.usage.unreported) t.unreported += 1;
      t.latencyMs += r.latencyMs;
      t.retries += r.retries;
    }
    return t;
  }

  calls(): CallRecord[] {
    return this.records.map((r) => ({ ...r, usage: { ...r.usage } }));
  }
}

/** Monotonic-ish clock in milliseconds that works in the page and in Node. */
export function nowMs(): number {
  return typeof performance !== "undefined" ? performance.now() : Date.now();
}
