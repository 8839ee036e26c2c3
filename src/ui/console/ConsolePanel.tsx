/**
 * The Console tab: a scratch console that runs a snippet of Python against
 * the editor's current text and the task's repository (import the target
 * file's functions and call them), in the box and time limit of the tests,
 * separate from them: nothing is checked, stored as a run, or counted as a
 * turn. A final expression's value is printed. The snippet is kept in this
 * browser per task; Ctrl/Cmd+Enter runs it.
 */
import { useEffect, useRef, useState } from "react";
import { SCRATCH_TEST_ID } from "../../python/scratch";
import { useServices } from "../services";
import type { TaskWorkspace } from "../tasks/panels";

/** One run of the console. */
interface Entry {
  n: number;
  snippet: string;
  stdout: string;
  stderr: string;
  /** The exception (message, then traceback), the time limit, or why it could not run; "" when it ran through. */
  error: string;
  ms: number;
}

const keyOf = (taskId: string) => `recode.console.${taskId}`;

function savedSnippet(taskId: string, fallback: string): string {
  try {
    return localStorage.getItem(keyOf(taskId)) ?? fallback;
  } catch {
    return fallback;
  }
}

/** A traceback without the frames of the console's own test file (`test.py`, which runs the snippet). */
function withoutScaffold(traceback: string): string {
  const out: string[] = [];
  let skipping = false;
  for (const line of traceback.split("\n")) {
    if (line.startsWith("  File ")) skipping = line.startsWith('  File "test.py"');
    else if (!line.startsWith("    ")) skipping = false;
    if (!skipping) out.push(line);
  }
  return out.join("\n");
}

/** The first lines a snippet could start from: import the target file's module. */
function starterSnippet(ws: TaskWorkspace): string {
  const mod = ws.task.meta.target_file_path.replace(/\.py$/, "").replaceAll("/", ".");
  const first = ws.task.meta.interfaces[0]?.name;
  return first ? `from ${mod} import ${first}\n\n${first}` : `import ${mod}\n`;
}

/** The console of the open task. */
export function ConsolePanel({ ws }: { ws: TaskWorkspace }) {
  const services = useServices();
  const [snippet, setSnippet] = useState(() => savedSnippet(ws.task.id, starterSnippet(ws)));
  const [entries, setEntries] = useState<Entry[]>([]);
  const [running, setRunning] = useState<AbortController | null>(null);
  /** What the running snippet has printed so far (its first writes: the finished run shows the whole output). */
  const [live, setLive] = useState<{ stdout: string; stderr: string } | null>(null);
  const count = useRef(0);
  const outRef = useRef<HTMLDivElement | null>(null);

  useEffect(() => {
    try {
      localStorage.setItem(keyOf(ws.task.id), snippet);
    } catch {
      /* storage full or refused: the snippet stays on the page */
    }
  }, [snippet, ws.task.id]);
  // The newest output is scrolled into view.
  useEffect(() => {
    if (entries.length > 0 || live) outRef.current?.lastElementChild?.scrollIntoView({ block: "nearest" });
  }, [entries, live]);

  const run = async () => {
    if (running || !snippet.trim()) return;
    const stop = new AbortController();
    setRunning(stop);
    const n = ++count.current;
    const t0 = performance.now();
    let entry: Entry;
    // Drawn at most once a frame: a printing loop sends many pieces in a few milliseconds.
    const printed = { stdout: "", stderr: "" };
    let frame: number | null = null;
    setLive({ ...printed });
    try {
      const r = await services.runScratch(ws.task, ws.getCode(), snippet, {
        signal: stop.signal,
        onProgress: (p) => {
          if (p.type !== "output" || p.id !== SCRATCH_TEST_ID) return;
          printed[p.stream] += p.text;
          frame ??= requestAnimationFrame(() => {
            frame = null;
            setLive({ ...printed });
          });
        },
      });
      const t = r.tests.find((x) => x.id === SCRATCH_TEST_ID);
      const error = r.collectionError
        ? `${r.collectionError.message}\n${r.collectionError.traceback}`
        : !t
          ? (r.incident?.message ?? "the snippet did not run")
          : t.status === "passed"
            ? ""
            : t.status === "timeout"
              ? t.message.replace("while this test ran", "while the snippet ran")
              : withoutScaffold(t.traceback || t.message);
      entry = { n, snippet, stdout: t?.stdout ?? "", stderr: t?.stderr ?? "", error: error.trim(), ms: performance.now() - t0 };
    } catch (e) {
      entry = { n, snippet, stdout: "", stderr: "", error: (e as Error).message, ms: performance.now() - t0 };
    } finally {
      if (frame !== null) cancelAnimationFrame(frame);
      setLive(null);
      setRunning(null);
    }
    setEntries((list) => [...list.slice(-19), entry]);
  };

  return (
    <div className="console-panel" data-testid="console-panel">
      <p className="hint">
        Run Python beside your current text and the task's files: import your functions and try them. The tests do not run, and nothing is
        stored or counted as a turn. The last line's value is printed.
      </p>
      <textarea
        className="console-input"
        aria-label="Console snippet"
        spellCheck={false}
        rows={6}
        value={snippet}
        onChange={(e) => setSnippet(e.target.value)}
        onKeyDown={(e) => {
          if ((e.ctrlKey || e.metaKey) && e.key === "Enter") {
            // The snippet, not the tests (the task view's Ctrl/Cmd+Enter skips a handled key).
            e.preventDefault();
            void run();
          }
        }}
      />
      <div className="results-actions">
        {running ? (
          <button type="button" onClick={() => running.abort()}>
            Stop
          </button>
        ) : (
          <button type="button" className="primary" onClick={() => void run()} disabled={!snippet.trim()} title="Ctrl/Cmd+Enter">
            Run snippet
          </button>
        )}
        <button type="button" onClick={() => setEntries([])} disabled={entries.length === 0 || running !== null}>
          Clear
        </button>
        {running && (
          <span className="muted small" role="status">
            Running…
          </span>
        )}
      </div>
      <div className="console-output" ref={outRef} data-testid="console-output">
        {entries.map((e) => (
          <div key={e.n} className={`console-entry${e.error ? " bad" : ""}`} data-testid="console-entry" data-ok={!e.error}>
            <div className="muted small">
              [{e.n}] {(e.ms / 1000).toFixed(2)} s
            </div>
            <pre className="console-snippet" title="The snippet run">
              {e.snippet}
            </pre>
            {e.stdout && <pre className="console-stdout">{e.stdout}</pre>}
            {e.stderr && <pre className="console-stderr">{e.stderr}</pre>}
            {e.error && <pre className="console-error">{e.error}</pre>}
            {!e.stdout && !e.stderr && !e.error && <div className="muted small">(no output)</div>}
          </div>
        ))}
        {running && live && (live.stdout || live.stderr) && (
          <div className="console-entry" data-testid="console-live" aria-live="polite">
            <div className="muted small">[{count.current}] printed so far</div>
            {live.stdout && <pre className="console-stdout">{live.stdout}</pre>}
            {live.stderr && <pre className="console-stderr">{live.stderr}</pre>}
          </div>
        )}
      </div>
    </div>
  );
}
