/** The view of a line diff (core/diff-lines.ts): added, removed and context lines, hunk heads. */
import type { DiffLine } from "../../core/diff-lines";

/** A diff as a block of lines; `empty` is shown when nothing changed. */
export function DiffView({ lines, empty, testId }: { lines: DiffLine[]; empty: string; testId?: string }) {
  return (
    <pre className="diff" data-testid={testId}>
      {lines.length === 0 ? (
        <span className="muted">{empty}</span>
      ) : (
        lines.map((l) => (
          <span
            key={l.at}
            className={`diff-line diff-${l.kind === "+" ? "add" : l.kind === "-" ? "del" : l.kind === "@" ? "hunk" : "ctx"}`}
          >
            {l.kind === "@" ? l.text : `${l.kind} ${l.text}`}
            {"\n"}
          </span>
        ))
      )}
    </pre>
  );
}
