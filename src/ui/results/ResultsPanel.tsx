/** Results of a run: counts, incident, collection error, and one row per unit test. */
import type { RunResult, TestResult } from "../../core/results";

const STATUS_LABEL: Record<TestResult["status"], string> = {
  passed: "passed",
  failed: "failed",
  error: "error",
  skipped: "skipped",
  xfail: "expected failure",
  xpass: "unexpected success",
  timeout: "timeout",
};

function ms(n: number): string {
  return n >= 1000 ? `${(n / 1000).toFixed(2)} s` : `${Math.round(n)} ms`;
}

/** Props of {@link ResultsPanel}. */
export interface ResultsPanelProps {
  result: RunResult | null;
  /** Live state while running: test ids collected and results so far. */
  live: { collected: string[]; done: TestResult[]; current: string | null } | null;
  /** Error that kept the run from starting (Python not available). */
  runError: string | null;
  /** When `result` is a stored run from an earlier visit: when it finished (ms since epoch). */
  storedAt: number | null;
}

function TestRow({ t }: { t: TestResult }) {
  const hasDetail = t.traceback || t.stdout || t.stderr || t.mismatch;
  return (
    <li className={`test-row status-${t.status}`} data-test-id={t.id} data-status={t.status}>
      <details>
        <summary>
          <span className={`badge ${t.status}`}>{STATUS_LABEL[t.status]}</span>
          <span className="test-id">{t.id}</span>
          {t.interface && <span className="test-itf">{t.interface}</span>}
          <span className="test-ms">{ms(t.durationMs)}</span>
          {t.line !== null && <span className="test-line">line {t.line}</span>}
          {t.message && <div className="test-msg">{t.message}</div>}
        </summary>
        {hasDetail ? (
          <div className="test-detail">
            {t.mismatch && (
              <div className="mismatch">
                <strong>{t.mismatch.key}</strong>
                {t.mismatch.where && <code>{t.mismatch.where}</code>}: {t.mismatch.detail}
              </div>
            )}
            {t.traceback && (
              <>
                <h4>Traceback</h4>
                <pre>{t.traceback}</pre>
              </>
            )}
            {t.stdout && (
              <>
                <h4>stdout{t.stdoutTruncated ? " (cut)" : ""}</h4>
                <pre>{t.stdout}</pre>
              </>
            )}
            {t.stderr && (
              <>
                <h4>stderr{t.stderrTruncated ? " (cut)" : ""}</h4>
                <pre>{t.stderr}</pre>
              </>
            )}
          </div>
        ) : (
          <div className="test-detail muted">No traceback or output.</div>
        )}
      </details>
    </li>
  );
}

/** The results list beside the editor. */
export function ResultsPanel({ result, live, runError, storedAt }: ResultsPanelProps) {
  if (runError) {
    return (
      <div className="results" data-testid="results">
        <div className="panel error" role="alert">
          {runError}
        </div>
      </div>
    );
  }
  if (live) {
    return (
      <div className="results" data-testid="results" aria-busy="true">
        <div className="counts">
          Running… {live.done.length}/{live.collected.length || "?"} done{live.current ? ` — ${live.current}` : ""}
        </div>
        <ul className="tests">
          {live.done.map((t) => (
            <TestRow key={t.id} t={t} />
          ))}
        </ul>
      </div>
    );
  }
  if (!result) {
    return (
      <div className="results empty" data-testid="results">
        Run the unit tests with <kbd>Run tests</kbd> or <kbd>Ctrl</kbd>+<kbd>Enter</kbd>.
      </div>
    );
  }
  const c = result.counts;
  return (
    <div className="results" data-testid="results">
      <div className={`counts ${result.allPassed ? "ok" : "bad"}`} data-testid="counts">
        {result.allPassed ? "All tests passed" : result.collectionError ? "The tests could not run" : "Not all tests passed"} — {c.passed}/
        {c.total} passed
        {c.failed ? `, ${c.failed} failed` : ""}
        {c.error ? `, ${c.error} error` : ""}
        {c.timeout ? `, ${c.timeout} timeout` : ""}
        {c.skipped ? `, ${c.skipped} skipped` : ""} <span className="muted">({ms(result.durationMs)})</span>
        {storedAt !== null && <span className="muted"> — last run {new Date(storedAt).toLocaleString()}</span>}
      </div>
      {result.incident && (
        <div className={`panel incident ${result.incident.kind}`} role="status" data-testid="incident" data-kind={result.incident.kind}>
          {incidentLabel(result.incident) && <strong>{incidentLabel(result.incident)}: </strong>}
          {result.incident.message}
        </div>
      )}
      {result.collectionError && (
        <div className="panel error" data-testid="collection-error">
          <strong>The tests could not be collected</strong>
          {result.collectionError.file && (
            <span>
              {" "}
              in <code>{result.collectionError.file}</code>
              {result.collectionError.line !== null && <> line {result.collectionError.line}</>}
            </span>
          )}
          : {result.collectionError.message.trim().split("\n").at(-1)}
          {(result.collectionError.traceback || result.collectionError.message.includes("\n")) && (
            <pre>{result.collectionError.traceback || result.collectionError.message}</pre>
          )}
        </div>
      )}
      <ul className="tests">
        {result.tests.map((t) => (
          <TestRow key={t.id} t={t} />
        ))}
      </ul>
    </div>
  );
}

/** The bold word before an incident's message, or "" when the message already starts with it ("Stopped: ..."). */
function incidentLabel(incident: { kind: string; message: string }): string {
  const label =
    incident.kind === "packages"
      ? "Packages"
      : incident.kind === "timeout" || incident.kind === "terminated"
        ? "Stopped"
        : incident.kind === "tampered"
          ? "Not trusted"
          : "Python";
  return incident.message.startsWith(label) ? "" : label;
}
