/**
 * Results of a run: counts, incident, collection error, and one row per unit
 * test. Lines of the target file (a test's line, a traceback's `File "...",
 * line N` of the target, a collection error's line) are links that move the
 * editor to that line.
 */
import { createContext, type MouseEvent, useContext } from "react";
import { printable } from "../../core/printable";
import { type RunResult, STOPPED_BY_USER, type TestResult } from "../../core/results";

/** The target file's path and how to show one of its lines in the editor; null: lines are plain text. */
const GoToLine = createContext<{ target: string; go: (line: number) => void } | null>(null);

/** "line N" that moves the editor there (plain text without an editor to move). */
function LineLink({ line, label = `line ${line}` }: { line: number; label?: string }) {
  const nav = useContext(GoToLine);
  if (!nav) return <>{label}</>;
  const click = (e: MouseEvent) => {
    // Inside a <summary>: the click moves the editor, it does not open or close the row.
    e.preventDefault();
    e.stopPropagation();
    nav.go(line);
  };
  return (
    <button type="button" className="line-link" onClick={click} title={`Show line ${line} of ${nav.target} in the editor`} data-line={line}>
      {label}
    </button>
  );
}

/** "line N" of `file`: a link when the file is the target. */
function FileLine({ file, line }: { file: string; line: number }) {
  const nav = useContext(GoToLine);
  return nav && (file === nav.target || file.endsWith(`/${nav.target}`)) ? <LineLink line={line} /> : <>line {line}</>;
}

const TRACE_LINE = /^(\s*File ")([^"]+)(", line )(\d+)(.*)$/;

/** A traceback whose lines in the target file are links to the editor. */
function Traceback({ text: raw }: { text: string }) {
  const nav = useContext(GoToLine);
  const text = printable(raw);
  if (!nav) return <pre>{text}</pre>;
  return (
    <pre>
      {text.split("\n").map((l, i) => {
        const m = TRACE_LINE.exec(l);
        const ours = m && ((m[2] as string) === nav.target || (m[2] as string).endsWith(`/${nav.target}`));
        return (
          // biome-ignore lint/suspicious/noArrayIndexKey: the lines of a fixed text
          <span key={i}>
            {i > 0 && "\n"}
            {ours && m ? (
              <>
                {m[1]}
                {m[2]}
                {'", '}
                <LineLink line={Number(m[4])} />
                {m[5]}
              </>
            ) : (
              l
            )}
          </span>
        );
      })}
    </pre>
  );
}

const STATUS_LABEL: Record<TestResult["status"], string> = {
  passed: "passed",
  failed: "failed",
  error: "error",
  skipped: "skipped",
  xfail: "expected failure",
  xpass: "unexpected success",
  timeout: "timeout",
  not_run: "not run",
};

function ms(n: number): string {
  return n >= 1000 ? `${(n / 1000).toFixed(2)} s` : `${Math.round(n)} ms`;
}

/** Waits shorter than this are not named beside a run's time (the undoing of the last run, a few ms). */
const NAMED_WAIT_MS = 250;

/**
 * A run's time as the summary line gives it: its whole time, and when Python was being prepared for a good part
 * of it (an instance's first run, a new interpreter after a crash), how much of it that took.
 */
function runTime(result: RunResult): string {
  const waited = result.waitedMs ?? 0;
  return waited >= NAMED_WAIT_MS ? `${ms(result.durationMs)}, of which ${ms(waited)} preparing Python` : ms(result.durationMs);
}

/** Props of {@link ResultsPanel}. */
export interface ResultsPanelProps {
  result: RunResult | null;
  /** Live state while running: test ids collected and results so far. */
  live: { collected: string[]; done: TestResult[]; current: string | null } | null;
  /** Error that kept the run from starting (Python not available). */
  runError: string | null;
  /** Python is still starting: a run asked for now waits for it (its time counts from the start of the tests). */
  pythonStarting?: boolean;
  /** When `result` is a stored run from an earlier visit: when it finished (ms since epoch). */
  storedAt: number | null;
  /** The target file's path, and how to show one of its lines in the editor (absent: lines are plain text). */
  goToLine?: { target: string; go: (line: number) => void };
  /** The page cannot run this task (it is shown read-only, the reason above): no invitation to run it. */
  readOnly?: boolean;
}

function TestRow({ t }: { t: TestResult }) {
  const hasDetail = t.traceback || t.stdout || t.stderr || t.mismatch;
  return (
    <li className={`test-row status-${t.status}`} data-test-id={t.id} data-status={t.status}>
      <details>
        <summary>
          <span className={`badge ${t.status}`}>
            {t.status === "timeout" && t.message === STOPPED_BY_USER ? "stopped" : STATUS_LABEL[t.status]}
          </span>
          <span className="test-id">{t.id}</span>
          {t.interface && <span className="test-itf">{t.interface}</span>}
          <span className="test-ms">{ms(t.durationMs)}</span>
          {t.line !== null && (
            <span className="test-line">
              <LineLink line={t.line} />
            </span>
          )}
          {t.message && (
            <div className="test-msg" title={printable(t.message.slice(0, 2000))}>
              {printable(t.message)}
            </div>
          )}
        </summary>
        {hasDetail ? (
          <div className="test-detail">
            {t.mismatch && (
              <div className="mismatch">
                <strong>{t.mismatch.key}</strong>
                {t.mismatch.where && <code>{t.mismatch.where}</code>}
                {t.mismatch.call && (
                  <>
                    , for <code>{t.mismatch.call}</code>
                  </>
                )}
                : {t.mismatch.detail}
              </div>
            )}
            {t.traceback && (
              <>
                <h4>Traceback</h4>
                <Traceback text={t.traceback} />
              </>
            )}
            {t.stdout && (
              <>
                <h4>stdout{t.stdoutTruncated ? " (cut)" : ""}</h4>
                <pre>{printable(t.stdout)}</pre>
              </>
            )}
            {t.stderr && (
              <>
                <h4>stderr{t.stderrTruncated ? " (cut)" : ""}</h4>
                <pre>{printable(t.stderr)}</pre>
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
export function ResultsPanel({ goToLine, ...rest }: ResultsPanelProps) {
  return (
    <GoToLine.Provider value={goToLine ?? null}>
      <Results {...rest} />
    </GoToLine.Provider>
  );
}

function Results({ result, live, runError, storedAt, pythonStarting, readOnly }: Omit<ResultsPanelProps, "goToLine">) {
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
          {pythonStarting && live.collected.length === 0
            ? "Waiting for Python to start: the tests run as soon as it is ready."
            : `Running… ${live.done.length}/${live.collected.length || "?"} done${live.current ? ` — ${live.current}` : ""}`}
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
        {readOnly ? (
          "This task is read-only here: the page does not run its tests."
        ) : (
          <>
            Run the unit tests with <kbd>Run tests</kbd> or <kbd>Ctrl</kbd>+<kbd>Enter</kbd>.
          </>
        )}
      </div>
    );
  }
  const c = result.counts;
  return (
    <div className="results" data-testid="results">
      <div className={`counts ${result.allPassed ? "ok" : "bad"}`} data-testid="counts">
        {result.allPassed ? "All tests passed" : result.collectionError ? "The tests could not run" : "Not all tests passed"}
        {result.collectionError && c.total === 0 ? ": no test ran" : ` — ${c.passed}/${c.total} passed`}
        {c.failed ? `, ${c.failed} failed` : ""}
        {c.error ? `, ${c.error} error` : ""}
        {c.timeout ? `, ${c.timeout} timeout` : ""}
        {c.not_run ? `, ${c.not_run} not run` : ""}
        {c.skipped ? `, ${c.skipped} skipped` : ""} <span className="muted">({runTime(result)})</span>
        {storedAt !== null && <span className="muted"> — last run {new Date(storedAt).toLocaleString()}</span>}
      </div>
      {result.incident && (
        <div className={`panel incident ${result.incident.kind}`} role="status" data-testid="incident" data-kind={result.incident.kind}>
          {incidentLabel(result.incident) && <strong>{incidentLabel(result.incident)}: </strong>}
          {printable(result.incident.message)}
        </div>
      )}
      {/* (A collection error that is the incident's own message, such as a package that did not load, is said once: above.) */}
      {result.collectionError && result.collectionError.message !== result.incident?.message && (
        <div className="panel error" data-testid="collection-error">
          <strong>The tests could not be collected</strong>
          {result.collectionError.file && (
            <span>
              {" "}
              in <code>{result.collectionError.file}</code>
              {result.collectionError.line !== null && (
                <>
                  {" "}
                  <FileLine file={result.collectionError.file} line={result.collectionError.line} />
                </>
              )}
            </span>
          )}
          : {printable(result.collectionError.message.trim().split("\n").at(-1) ?? "")}
          {(result.collectionError.traceback || result.collectionError.message.includes("\n")) && (
            <Traceback text={result.collectionError.traceback || result.collectionError.message} />
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
