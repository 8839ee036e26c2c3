/** A task: what to read (tabs) beside the editor and the results of the last run. */
import { useCallback, useEffect, useRef, useState, useSyncExternalStore } from "react";
import type { RunResult, TestResult } from "../../core/results";
import type { Task } from "../../core/task";
import type { EditorApi } from "../editor/CodeEditor";
import { LazyCodeEditor, modelPath } from "../editor/LazyEditor";
import { runMarkers } from "../editor/markers";
import { useNarrow } from "../layout/narrow";
import { SplitPane } from "../layout/SplitPane";
import { networkWatch, offlineBlocker } from "../offline/network";
import { ResultsPanel } from "../results/ResultsPanel";
import { type OpenedDraft, useObservable, useServices } from "../services";
import { setViewPrefs, viewPrefs } from "../view-prefs";
import { pageRunBlocker } from "./page-support";
import type { TaskWorkspace } from "./panels";
import { TaskInfo } from "./TaskInfo";

interface Live {
  collected: string[];
  done: TestResult[];
  current: string | null;
}

function DraftBadge() {
  const s = useObservable(useServices().draftState);
  if (s.state === "none") return <span className="draft muted">starting text</span>;
  if (s.state === "pending") return <span className="draft muted">saving…</span>;
  if (s.state === "saved")
    return (
      <span className="draft muted" data-testid="draft-saved">
        draft saved
      </span>
    );
  return (
    <span className="draft error" role="alert" title={s.message}>
      draft not saved: {s.message}
    </span>
  );
}

/** The narrow page's tabs of a task view. */
type NarrowTab = "task" | "code" | "results";

/** The workspace of one task. Keyed by task id by the parent so state resets per task. */
export function TaskView({ task }: { task: Task }) {
  const services = useServices();
  const narrow = useNarrow();
  const [tab, setTab] = useState<NarrowTab>("code");
  const { wordWrap } = useSyncExternalStore(viewPrefs.subscribe, viewPrefs.get);
  const python = useObservable(services.python);
  const [opened, setOpened] = useState<OpenedDraft | null>(null);
  const [result, setResult] = useState<RunResult | null>(null);
  /** Runs finished in this view (exposed as data-runs, so tests can wait for the next result). */
  const [runs, setRuns] = useState(0);
  const [storedAt, setStoredAt] = useState<number | null>(null);
  const [live, setLive] = useState<Live | null>(null);
  const [runError, setRunError] = useState<string | null>(null);
  const abortRef = useRef<AbortController | null>(null);
  const codeRef = useRef<string>("");
  const editorApi = useRef<EditorApi | null>(null);
  const target = task.meta.target_file_path;
  /** Why the page cannot run this task (shown read-only), or null. */
  const blocked = pageRunBlocker(task);
  /** Why the task cannot run now for want of a network (a package never stored here), or null. */
  const offline = offlineBlocker(task, useObservable(networkWatch.state));

  useEffect(() => {
    document.title = `${task.meta.title} — RECODE playground`;
    return () => {
      document.title = "RECODE playground";
    };
  }, [task]);

  useEffect(() => {
    let alive = true;
    void services.openDraft(task).then((d) => {
      if (!alive) return;
      codeRef.current = d.code;
      setOpened(d);
    });
    void services.lastRun(task.id).then((r) => {
      if (alive && r) {
        setResult(r.result);
        setStoredAt(r.finishedAt);
      }
    });
    return () => {
      alive = false;
      abortRef.current?.abort();
      void services.flushDrafts();
    };
  }, [services, task]);

  const running = live !== null;

  const run = useCallback(async (): Promise<RunResult | null> => {
    if (abortRef.current) return null;
    if (blocked || offline) {
      setRunError(blocked ?? offline);
      return null;
    }
    const ctl = new AbortController();
    abortRef.current = ctl;
    setRunError(null);
    const state: Live = { collected: [], done: [], current: null };
    setLive({ ...state });
    // Live progress is drawn at most once a frame: a fast run sends many events in a few milliseconds.
    let frame: number | null = null;
    const draw = () => {
      frame = null;
      setLive({ ...state });
    };
    try {
      const code = editorApi.current?.getText() ?? codeRef.current;
      const r = await services.run(task, code, {
        signal: ctl.signal,
        onProgress: (p) => {
          if (p.type === "collected") state.collected = p.tests;
          else if (p.type === "test-start") state.current = p.id;
          else if (p.type === "test-result") {
            state.done = [...state.done, p.result];
            state.current = null;
          } else return;
          frame ??= requestAnimationFrame(draw);
        },
      });
      setResult(r);
      setRuns((n) => n + 1);
      setStoredAt(null);
      return r;
    } catch (e) {
      setRunError(`The tests could not run: ${(e as Error).message}`);
      return null;
    } finally {
      if (frame !== null) cancelAnimationFrame(frame);
      abortRef.current = null;
      setLive(null);
    }
  }, [services, task, blocked, offline]);

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      // A control that takes Ctrl/Cmd+Enter itself (the console's Run snippet) has handled it.
      if (e.defaultPrevented) return;
      if ((e.ctrlKey || e.metaKey) && e.key === "Enter") {
        e.preventDefault();
        void run();
      } else if (e.altKey && !e.ctrlKey && !e.metaKey && e.code === "KeyZ") {
        e.preventDefault();
        setViewPrefs({ wordWrap: !viewPrefs.get().wordWrap });
      }
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [run]);

  const reset = () => {
    if (!window.confirm("Reset the target file to its starting text? Your current text will be replaced (Ctrl+Z in the editor undoes it)."))
      return;
    editorApi.current?.setText(task.starter);
    codeRef.current = task.starter;
    // The shown results were for the replaced text.
    setResult(null);
    setStoredAt(null);
    void services.resetDraft(task);
  };

  const workspace: TaskWorkspace = {
    task,
    getCode: () => editorApi.current?.getText() ?? codeRef.current,
    setCode: (text) => {
      if (editorApi.current) editorApi.current.setText(text);
      else {
        codeRef.current = text;
        services.editDraft(task, text);
      }
    },
    runTests: run,
    lastResult: result,
    running,
  };

  const onChange = (code: string) => {
    codeRef.current = code;
    services.editDraft(task, code);
  };

  const toolbar = (
    <div className="toolbar">
      <span className="target-path" title="The file you write">
        {target}
      </span>
      <DraftBadge />
      <span className="spacer" />
      {blocked && <span className="tag readonly">read-only</span>}
      <button
        type="button"
        className="toggle"
        aria-pressed={wordWrap}
        onClick={() => setViewPrefs({ wordWrap: !wordWrap })}
        title="Wrap long lines (Alt+Z)"
        data-testid="wrap-toggle"
      >
        Wrap
      </button>
      <button type="button" onClick={reset} disabled={running || !opened || blocked !== null}>
        Reset to start
      </button>
      {blocked ? null : running ? (
        <button type="button" className="stop" onClick={() => abortRef.current?.abort()}>
          Stop
        </button>
      ) : (
        <button
          type="button"
          className="primary"
          onClick={() => void run()}
          disabled={!opened || offline !== null}
          title={offline ?? "Ctrl/Cmd+Enter"}
        >
          Run tests
        </button>
      )}
    </div>
  );
  const notes = (
    <>
      {opened?.stale && (
        <div className="panel warning" role="status">
          This draft was written against an earlier version of the task files. Compare it with the instruction, or use Reset to start.
        </div>
      )}
      {blocked && (
        <div className="panel warning" role="status" data-testid="read-only-reason">
          {blocked}
        </div>
      )}
      {offline && (
        <div className="panel warning" role="status" data-testid="offline-reason">
          {offline}
        </div>
      )}
    </>
  );
  const editor = (
    <div className="editor">
      {opened ? (
        <LazyCodeEditor
          path={modelPath(task.id, target)}
          initial={opened.code}
          onChange={onChange}
          onRun={() => void run()}
          readOnly={blocked !== null}
          markers={runMarkers(live ? null : result, target)}
          onReady={(api) => {
            editorApi.current = api;
          }}
        />
      ) : (
        <div className="editor-loading">Opening draft…</div>
      )}
    </div>
  );
  const results = (
    <div className="results-wrap" data-testid="results-wrap" data-runs={runs}>
      <ResultsPanel
        result={result}
        live={live}
        runError={runError}
        pythonStarting={python.state === "loading"}
        storedAt={storedAt}
        readOnly={blocked !== null}
        goToLine={{
          target,
          go: (line) => {
            // On a narrow page the editor is its own tab.
            setTab("code");
            editorApi.current?.revealLine(line);
          },
        }}
      />
    </div>
  );
  const info = <TaskInfo task={task} workspace={workspace} />;

  if (narrow) {
    // (A run whose tests could not be collected has no count to show: "!" says it needs a look.)
    const counts =
      result && !live
        ? result.collectionError && result.counts.total === 0
          ? "!"
          : `${result.counts.passed}/${result.counts.total}`
        : live
          ? "…"
          : "";
    const tabs: [NarrowTab, string][] = [
      ["task", "Task"],
      ["code", "Code"],
      ["results", counts ? `Results ${counts}` : "Results"],
    ];
    return (
      <div className="task-view narrow">
        <div className="view-tabs" role="tablist" aria-label="Task, code and results">
          {tabs.map(([id, name]) => (
            <button
              key={id}
              type="button"
              role="tab"
              aria-selected={tab === id}
              className={tab === id ? "active" : ""}
              onClick={() => setTab(id)}
            >
              {name}
            </button>
          ))}
        </div>
        <div className="view-tab" role="tabpanel" hidden={tab !== "task"}>
          {info}
        </div>
        <section className="work view-tab" role="tabpanel" hidden={tab !== "code"}>
          {toolbar}
          {notes}
          {editor}
        </section>
        <div className="view-tab scroll" role="tabpanel" hidden={tab !== "results"}>
          {results}
        </div>
      </div>
    );
  }

  return (
    <div className="task-view">
      <SplitPane
        id="task"
        direction="row"
        defaultSize={38}
        minPx={260}
        collapsible="first"
        label="Resize the task's text"
        first={info}
        second={
          <section className="work">
            {toolbar}
            {notes}
            <SplitPane
              id="work"
              direction="column"
              defaultSize={80}
              minPx={80}
              collapsible="second"
              label="Resize the test results"
              first={editor}
              second={results}
            />
          </section>
        }
      />
    </div>
  );
}
