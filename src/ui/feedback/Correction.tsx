/**
 * An L4 code correction (RECODE-H feedback level 4, direct code feedback) as a
 * student meets it: the corrected code once, highlighted; what applying it
 * would change in the editor, as a diff taken when asked (the editor may have
 * changed since the feedback came), shown in the code's place; and Apply.
 */
import { useEffect, useState } from "react";
import { type DiffLine, diffLines } from "../../core/diff-lines";
import type { FeedbackItem } from "../../core/feedback";
import { DiffView } from "../diff/DiffView";
import { preloadEditor } from "../editor/LazyEditor";
import type { TaskWorkspace } from "../tasks/panels";
import { applyCorrection, codeOfCorrection } from "./apply";

/** Python source highlighted with the editor's own colouriser (Monaco escapes the text); plain until it is loaded. */
export function HighlightedCode({ code }: { code: string }) {
  const [html, setHtml] = useState<string | null>(null);
  useEffect(() => {
    let alive = true;
    // The editor's own chunk (Monaco inside it, exposed on window), as the page loads it: no second copy.
    void preloadEditor()
      .then(() => (window as unknown as { monaco: typeof import("monaco-editor") }).monaco.editor.colorize(code, "python", { tabSize: 4 }))
      .then((h) => {
        if (alive) setHtml(h);
      })
      .catch(() => {});
    return () => {
      alive = false;
    };
  }, [code]);
  return html === null ? (
    <pre className="code">{code}</pre>
  ) : (
    // biome-ignore lint/security/noDangerouslySetInnerHtml: Monaco's colorize escapes the source text; the markup is its own spans
    <pre className="code colorized" dangerouslySetInnerHTML={{ __html: html }} />
  );
}

/** One interface's correction: its code, the change it makes to the editor (on request), and Apply. */
export function CorrectionBlock({ item, ws, canApply }: { item: FeedbackItem; ws: TaskWorkspace; canApply: boolean }) {
  const [diff, setDiff] = useState<DiffLine[] | null>(null);
  const code = codeOfCorrection(item.direct_code_feedback);
  const compare = () => {
    const now = ws.getCode();
    setDiff(diffLines(now, applyCorrection(now, item.direct_code_feedback)));
  };
  return (
    <div className="feedback-code" data-testid="feedback-code">
      <div className="feedback-code-head">
        <span>
          Code correction for <code>{item.interface}</code>
        </span>
        <span className="spacer" />
        <button type="button" onClick={() => (diff ? setDiff(null) : compare())} aria-expanded={diff !== null}>
          {diff ? "Hide the change" : "Show the change"}
        </button>
        {canApply && (
          <button
            type="button"
            onClick={() => {
              ws.setCode(applyCorrection(ws.getCode(), item.direct_code_feedback));
              setDiff(null);
            }}
            title="Replaces the definition in the editor (Ctrl+Z undoes it)"
          >
            Apply to editor
          </button>
        )}
      </div>
      {/* The change in the code's place: below a long block it would be out of sight. */}
      {diff ? (
        <DiffView lines={diff} empty="The editor already holds this code." testId="feedback-diff" />
      ) : (
        <HighlightedCode code={code} />
      )}
    </div>
  );
}
