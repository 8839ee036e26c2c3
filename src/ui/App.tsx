/**
 * The page: header with Python status, task list on the left, the open task on
 * the right. Settings and the open task's files are loaded when first needed.
 */
import { useCallback, useEffect, useState } from "react";
import { describeClass } from "../core/class-settings";
import { STUDENT_BUILD } from "./build-info";
import { confirmLeaving } from "./busy";
import { useNarrow } from "./layout/narrow";
import { SplitPane, togglePane } from "./layout/SplitPane";
import { OfflineBadge, OfflineBar } from "./offline/OfflineBar";
import { useObservable, useServices } from "./services";
import { captureDrop, carriesFiles } from "./tasks/pack-drop";
import { lazyComponent } from "./tasks/panels";
import { TaskList } from "./tasks/TaskList";
import { TaskView } from "./tasks/TaskView";
import { ClassFetchError } from "./teaching";

const StudentWorkView = lazyComponent<Record<string, never>>(
  async () => (await import("./tasks/StudentWorkView")).StudentWorkView,
  "the student's work",
);

const ResultsPage = lazyComponent<Record<string, never>>(async () => (await import("./results/ResultsPage")).ResultsPage, "the results");

const ClassWorkView = lazyComponent<Record<string, never>>(
  async () => (await import("./tasks/ClassWorkView")).ClassWorkView,
  "the class's work",
);

const TaskPackDialog = lazyComponent<Record<string, never>>(
  async () => (await import("./tasks/TaskPackDialog")).TaskPackDialog,
  "the task pack import",
);

const SettingsPanel = lazyComponent<{ onClose: () => void }>(
  async () => (await import("./settings/SettingsPanel")).SettingsPanel,
  "the settings",
);

function PythonBadge() {
  const services = useServices();
  const s = useObservable(services.python);
  if (s.state === "loading") {
    return (
      <span className="py-status loading" data-testid="python-status" data-state="loading">
        Python loading…
      </span>
    );
  }
  if (s.state === "ready") {
    return (
      <span
        className="py-status ready"
        data-testid="python-status"
        data-state="ready"
        data-start={s.fromSnapshot ? "snapshot" : "fresh"}
        title={s.fromSnapshot ? "Started from the interpreter saved by an earlier start" : undefined}
      >
        Python {s.version}
      </span>
    );
  }
  // The message may be long and is cut to fit; Retry stays outside it, always visible.
  return (
    <>
      <span className="py-status error" data-testid="python-status" data-state="error" title={s.message}>
        Python failed: {s.message}
      </span>
      <button type="button" className="py-retry" onClick={() => services.startPython()}>
        Retry
      </button>
    </>
  );
}

function Notices() {
  const services = useServices();
  const notices = useObservable(services.notices);
  if (notices.length === 0) return null;
  return (
    <div className="notices">
      {notices.map((n) => (
        <div key={n.id} className={`notice ${n.kind}`} role={n.kind === "error" ? "alert" : "status"}>
          <span>{n.text}</span>
          <button type="button" aria-label="Dismiss" onClick={() => services.dismiss(n.id)}>
            ×
          </button>
        </div>
      ))}
    </div>
  );
}

/** The active class, in the header. */
function ClassBadge() {
  const c = useObservable(useServices().teaching.classSettings);
  if (!c) return null;
  return (
    <span className="class-badge" data-testid="class-badge" title={`Class file ${c.source}: ${describeClass(c)}`}>
      Class: {c.name} <span className="muted small">{describeClass(c)}</span>
    </span>
  );
}

/** The page's address: `#task=<id>`, `#results`, or `#results/task=<id>` (the results page, that task behind it). */
const HASH = /^#(?:(results)(?:\/task=([a-z0-9-]+))?|task=([a-z0-9-]+))$/;

/** The task id in the page's address (`#task=<id>`, `#results/task=<id>`), or null. */
export function taskFromHash(): string | null {
  const m = HASH.exec(location.hash);
  return m?.[2] ?? m?.[3] ?? null;
}

/** Whether the page's address is the results page (`#results`, `#results/task=<id>`). */
export function resultsInHash(): boolean {
  return HASH.exec(location.hash)?.[1] === "results";
}

/** The address of the page: the results page or not, and the open task. */
function hashOf(results: boolean, task: string | null): string {
  if (results) return task ? `#results/task=${task}` : "#results";
  return task ? `#task=${task}` : location.pathname + location.search;
}

/** Root component. Expects a ServicesContext provider above it. */
export function App() {
  const services = useServices();
  const narrow = useNarrow();
  const [selected, setSelected] = useState<string | null>(() => taskFromHash());
  /** The results page is open (`#results`); the task stays open behind it, an agent run goes on. */
  const [resultsOpen, setResultsOpen] = useState(() => resultsInHash());
  // The settings dialog open, by the number of its opening (0: closed). A dialog's close event comes a task
  // later: one that belongs to an earlier opening (closed with Escape, then opened again at once) closes nothing.
  const [settingsOpening, setSettingsOpening] = useState(0);
  const openSettings = useCallback(
    () => setSettingsOpening((n) => (n > 0 && document.querySelector<HTMLDialogElement>("dialog.settings")?.open ? n : Math.abs(n) + 1)),
    [],
  );
  const closeSettings = (opening: number) => setSettingsOpening((n) => (n === opening ? -n : n));
  /** On a narrow page: the task list is shown instead of the task. */
  const [listOpen, setListOpen] = useState(false);
  const catalog = useObservable(services.catalogEntries);
  // A class's students get the teacher's tasks: the hint to import packs is the teacher's (dropping still works).
  const inClass = useObservable(services.teaching.classSettings) !== null;
  const classSettings = useObservable(services.teaching.classSettings);
  const openedWork = useObservable(services.teaching.openedWork);
  const openedPack = useObservable(services.taskPacks.opened);
  const openedClassWork = useObservable(services.teaching.openedClassWork);
  const [dropping, setDropping] = useState(false);
  /** A class names its tasks: another one is not opened. */
  const outOfClass = selected !== null && classSettings?.tasks != null && !classSettings.tasks.includes(selected);
  const entry = selected && !outOfClass ? catalog.find((e) => e.id === selected) : undefined;
  const task = entry?.task ?? null;
  const loading = entry !== undefined && entry.task === null && entry.error === null;

  useEffect(() => {
    if (selected && !outOfClass) void services.loadTask(selected);
  }, [services, selected, outOfClass]);

  // `?class=URL`: load that class file (then drop it from the address; the class is stored).
  useEffect(() => {
    const params = new URLSearchParams(location.search);
    const url = params.get("class");
    if (!url) return;
    const teaching = services.teaching;
    // A link to another class does not silently replace the one in use: the student says so (once the
    // linked file is read, so that the question names it).
    const ask = async () => {
      let fetched: { text: string; source: string };
      try {
        fetched = await teaching.fetchClass(url);
      } catch (e) {
        // The link of the class already in use, opened with no network: the stored copy goes on, as said.
        await teaching.whenLoaded();
        const active = teaching.classSettings.get();
        if (!(e instanceof ClassFetchError) || active?.source !== e.source) throw e;
        services.notify(
          "warning",
          `The class file could not be fetched (${e.reason}): the copy of the class "${active.name}" stored in this browser is in use.`,
        );
        return;
      }
      const { text, source } = fetched;
      const next = await teaching.readClass(text, source);
      await teaching.whenLoaded();
      const active = teaching.classSettings.get();
      if (active && active.source !== source && !window.confirm(`Leave the class "${active.name}" for "${next.name}" (${source})?`)) return;
      await teaching.applyClass(next);
    };
    ask().then(
      () => {
        params.delete("class");
        const rest = params.toString();
        history.replaceState(null, "", `${location.pathname}${rest ? `?${rest}` : ""}${location.hash}`);
      },
      (e: Error) => services.notify("error", e.message),
    );
  }, [services]);

  useEffect(() => {
    const onHash = () => {
      setResultsOpen(resultsInHash());
      setSelected(taskFromHash());
    };
    window.addEventListener("hashchange", onHash);
    return () => window.removeEventListener("hashchange", onHash);
  }, []);

  // Ctrl/Cmd+B: the task list; Ctrl/Cmd+,: the settings (shortcuts.ts lists them).
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (!(e.ctrlKey || e.metaKey) || e.altKey) return;
      if (e.key === "b" || e.key === "B") {
        e.preventDefault();
        if (narrow) setListOpen((v) => !v);
        else togglePane("main");
      } else if (e.key === ",") {
        e.preventDefault();
        openSettings();
      }
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [narrow, openSettings]);

  const select = (id: string) => {
    // An agent run on another task would be cut short: ask first.
    if (id !== selected && !confirmLeaving(id)) return;
    void services.flushDrafts();
    history.replaceState(null, "", `#task=${id}`);
    setSelected(id);
    setResultsOpen(false);
    setListOpen(false);
  };
  const showResults = (open: boolean) => {
    if (open) history.pushState(null, "", hashOf(true, selected));
    else history.replaceState(null, "", hashOf(false, selected));
    setResultsOpen(open);
  };

  // A task pack (a zip or a folder) dropped on the task list is imported (TaskPackDialog).
  const list = (
    <nav
      className={`sidebar${dropping ? " dropping" : ""}`}
      aria-label="Tasks"
      onDragOver={(e) => {
        if (!carriesFiles(e.dataTransfer)) return;
        e.preventDefault();
        setDropping(true);
      }}
      onDragLeave={() => setDropping(false)}
      onDrop={(e) => {
        setDropping(false);
        if (!carriesFiles(e.dataTransfer)) return;
        e.preventDefault();
        services.taskPacks.opened.set(captureDrop(e.dataTransfer));
      }}
      data-testid="task-sidebar"
    >
      <TaskList selected={selected} onSelect={select} />
      {!inClass && <p className="drop-hint muted small">Drop a task pack (a zip or a folder of task folders) here to import it.</p>}
    </nav>
  );
  const content = (
    <div className="content">
      {task ? (
        <TaskView key={task.id} task={task} />
      ) : loading ? (
        <div className="welcome muted" role="status" data-testid="task-loading">
          Opening the task…
        </div>
      ) : (
        <div className="welcome">
          <h2>Pick a task</h2>
          <p>
            Each task is a method to implement, most from a research paper: read the instruction (and the paper, when the task has one),
            write the target file, and run the unit tests. Your text is saved in this browser as you type.
          </p>
          {selected &&
            (outOfClass ? (
              <p className="panel warning" data-testid="out-of-class">
                The task "{selected}" is not part of the class {classSettings?.name}: pick one of the class's tasks.
              </p>
            ) : (
              <p className="panel error">No task "{selected}" is available.</p>
            ))}
        </div>
      )}
    </div>
  );

  return (
    <div className={`app${narrow ? " narrow" : ""}`}>
      <header className="app-head">
        {narrow && !resultsOpen && (
          <button type="button" onClick={() => setListOpen((v) => !v)} aria-expanded={listOpen || !selected} data-testid="tasks-toggle">
            Tasks
          </button>
        )}
        <h1>RECODE playground</h1>
        {/* A class's badge needs the room. */}
        {!classSettings && <span className="subtitle">research-code tasks with unit tests, run in your browser</span>}
        <span className="spacer" />
        {STUDENT_BUILD && (
          <span
            className="tag readonly"
            data-testid="student-build"
            title="This build leaves the canonical solutions out: L4 is unavailable."
          >
            student build
          </span>
        )}
        <ClassBadge />
        <PythonBadge />
        <OfflineBadge />
        <button
          type="button"
          onClick={() => showResults(!resultsOpen)}
          aria-pressed={resultsOpen}
          data-testid="results-toggle"
          title={resultsOpen ? "Back to the task" : "Stored agent runs: tables, curves, comparisons, transcripts"}
        >
          {resultsOpen ? (selected ? "Back to the task" : "Tasks") : "Results"}
        </button>
        <button type="button" onClick={openSettings} aria-haspopup="dialog" title="Settings (Ctrl/Cmd+,)">
          Settings
        </button>
      </header>
      <Notices />
      <OfflineBar />
      {settingsOpening > 0 && <SettingsPanel key={settingsOpening} onClose={() => closeSettings(settingsOpening)} />}
      {openedWork && <StudentWorkView />}
      {openedClassWork && <ClassWorkView />}
      {openedPack && <TaskPackDialog />}
      {resultsOpen && (
        <main className="app-main results-main">
          <ResultsPage />
        </main>
      )}
      <main className="app-main" hidden={resultsOpen}>
        {narrow ? (
          listOpen || !selected ? (
            list
          ) : (
            content
          )
        ) : (
          <SplitPane
            id="main"
            direction="row"
            defaultSize={18}
            minPx={160}
            collapsible="first"
            label="Resize the task list"
            first={list}
            second={content}
          />
        )}
      </main>
    </div>
  );
}
