/**
 * The event stream cut into lines, holding at most a bounded unfinished line:
 * code under test that writes to the event channel without ever ending a line
 * cannot grow the host's (or the box's) memory past the stream's limit.
 */

/** Characters an unfinished event line may hold: the whole stream's limit (`STREAM_LIMITS.chars` in assembler.ts). */
export const MAX_EVENT_LINE = 64 * 1024 * 1024;

/** Splits text into lines (without the newline); a line longer than `maxLine` is cut there and the rest of it dropped. */
export class LineSplitter {
  private pending = "";
  /** Inside a line that was cut: text is dropped up to its newline. */
  private dropping = false;

  /**
   * @param onLine called with each line, in order; a cut line comes as its first `maxLine` characters (the
   *   reader finds it malformed, or over the stream's limit, and the run is not trusted).
   * @param maxLine characters of one line before it is cut (default {@link MAX_EVENT_LINE}).
   */
  constructor(
    private readonly onLine: (line: string) => void,
    private readonly maxLine: number = MAX_EVENT_LINE,
  ) {}

  /** Feed text as it arrives. */
  push(text: string): void {
    let start = 0;
    for (let nl = text.indexOf("\n"); nl >= 0; nl = text.indexOf("\n", start)) {
      if (this.dropping) this.dropping = false;
      else this.emit(this.pending + text.slice(start, nl));
      this.pending = "";
      start = nl + 1;
    }
    if (this.dropping || start === text.length) return;
    this.pending += text.slice(start);
    if (this.pending.length > this.maxLine) {
      this.emit(this.pending.slice(0, this.maxLine));
      this.pending = "";
      this.dropping = true;
    }
  }

  /** Forget an unfinished line (a new run starts). */
  reset(): void {
    this.pending = "";
    this.dropping = false;
  }

  private emit(line: string): void {
    if (line.length > this.maxLine) line = line.slice(0, this.maxLine);
    this.onLine(line);
  }
}

// Its methods cannot be replaced (the worker's event device uses one).
Object.freeze(LineSplitter.prototype);
