/**
 * Agent tab: the coder seat is taken by a model (RECODE-H "Interaction
 * protocol"). Choose the setting, feedback levels, turn and step limits and
 * the researcher; Run runs turn 0 once and then each level, saving after every
 * turn; Stop keeps what was saved. Every stored episode of the task is shown
 * turn by turn: code (loadable into the editor), test results, the feedback
 * text the agent received, and its actions and messages.
 */
import { useEffect, useState } from "react";
import { AGENT_SETTINGS, type AgentSetting } from "../../core/agent/types";
import { PROTOCOL_PROFILES, type ProtocolProfile } from "../../core/protocol";
import type { Trajectory } from "../../core/trajectory";
import { FEEDBACK_LEVELS, type FeedbackLevel } from "../../core/vocabulary";
import { STUDENT_BUILD } from "../build-info";
import { specOf } from "../models";
import { useObservable, useServices } from "../services";
import type { TaskWorkspace } from "../tasks/panels";
import type { AgentRunOptions } from "./controller";
import { agentRunsOf } from "./controller";
import { hasDemo } from "./demo";
import { loadAgentOptions, saveAgentOptions } from "./options-store";
import { EpisodeView, type ResumeChoice } from "./Transcript";

const LEVELS: readonly FeedbackLevel[] = FEEDBACK_LEVELS;
const SETTING_HINTS: Record<AgentSetting, string> = {
  baseline: "one-shot generation each turn, no tools",
  agent: "tools (READ, BROWSE, RETRIEVE, REPLACE, SUBMIT), no memory across turns",
  memory_agent: "tools and memory across turns (the paper's setting)",
};

/** Options per task while the page is open; also kept in the browser (options-store.ts) for the next visit. */
const chosen = new Map<string, AgentRunOptions>();
const DEFAULTS: AgentRunOptions = {
  setting: "memory_agent",
  levels: [0, 2, 4],
  maxTurns: 10,
  maxSteps: 3,
  researcher: "rules",
  protocol: "playground",
};

/** What each protocol profile is for (docs/protocol.md). */
const PROTOCOL_HINTS: Record<ProtocolProfile, string> = {
  playground: "the playground's choices (clearer feedback, test log in every setting)",
  reference: "behaves like the official RECODE-H harness, to set numbers beside the paper's",
};

function modelLabel(kind: string, model: string, webllm: string, script: string): string {
  if (kind === "scripted") return script ? `scripted:${script}` : "scripted (no script uploaded)";
  if (kind === "webllm") return webllm ? `webllm:${webllm}` : "WebLLM (no model chosen)";
  return model || "not set";
}

/** The Agent tab of a task. */
export function AgentPanel({ ws }: { ws: TaskWorkspace }) {
  const services = useServices();
  const runs = agentRunsOf(services);
  const task = ws.task;
  const state = useObservable(runs.state(task.id));
  const models = useObservable(services.models);
  const stored = useObservable(services.trajectories);
  const progress = useObservable(services.modelProgress);
  const [opts, setOptsState] = useState<AgentRunOptions>(chosen.get(task.id) ?? loadAgentOptions(task.id) ?? DEFAULTS);
  const [turnsText, setTurnsText] = useState(String(opts.maxTurns));
  const [stepsText, setStepsText] = useState(String(opts.maxSteps));

  useEffect(() => {
    if (!stored.loaded) void services.refreshTrajectories();
  }, [services, stored.loaded]);

  const setOpts = (o: AgentRunOptions) => {
    chosen.set(task.id, o);
    saveAgentOptions(task.id, o);
    setOptsState(o);
  };
  const intIn = (text: string, max: number) => {
    const n = Number(text);
    return Number.isInteger(n) && n >= 1 && n <= max ? n : null;
  };
  // The levels offered: the class's cap, and no L4 in a student build (no canonical solution to show).
  const classSettings = useObservable(services.teaching.classSettings);
  const cap = Math.min(classSettings?.maxLevel ?? 4, STUDENT_BUILD || task.canonical.trim() === "" ? 3 : 4);
  const levels = opts.levels.filter((l) => l <= cap);
  const turns = intIn(turnsText, 50);
  const steps = intIn(stepsText, 20);
  const problems = [
    levels.length === 0 ? "Choose at least one feedback level." : null,
    turns === null ? `Max turns: "${turnsText}" must be a whole number from 1 to 50.` : null,
    steps === null ? `Max steps: "${stepsText}" must be a whole number from 1 to 20.` : null,
  ].filter((p): p is string => p !== null);

  const run = () => {
    if (problems.length || turns === null || steps === null) return;
    const o = { ...opts, levels, maxTurns: turns, maxSteps: steps };
    setOpts(o);
    void runs.start(task, o);
  };

  // The offline demo: a scripted model (examples/), baseline, L0 and L3 (the highest level the class allows, when
  // lower), three turns; the options above stay as they are. Its script acts on what the feedback says: with L3's
  // suggested fix it is solved a turn sooner than with the test log alone.
  const demoLevels = [...new Set([0, Math.min(3, cap)])] as FeedbackLevel[];
  const demoOptions = `baseline, ${demoLevels.map((l) => `L${l}`).join(" and ")}, 3 turns`;
  const runDemo = () => {
    void runs.start(task, {
      ...opts,
      setting: "baseline",
      levels: demoLevels,
      maxTurns: 3,
      maxSteps: 3,
      researcher: "rules",
      coder: "demo",
    });
  };

  /**
   * How an unfinished episode is resumed: with the options it was run with (its level alone), by the coder it
   * was run with; a reason instead when that coder is not the one in Settings.
   */
  let coderSpec = "";
  try {
    coderSpec = specOf("coder", models.coder);
  } catch {
    // no coder set yet: nothing but the demo can be resumed
  }
  const resumeOf = (t: Trajectory): ResumeChoice => {
    const c = t.config;
    const demo = c.model.startsWith("scripted:demo-");
    if (!demo && c.model !== coderSpec) {
      return {
        blocked: `This episode's coder is ${c.model}; Settings has ${coderSpec || "no coder model"}. Set it in Settings to resume.`,
      };
    }
    const o: AgentRunOptions = {
      setting: c.setting,
      levels: [c.level],
      maxTurns: c.maxTurns,
      maxSteps: c.maxSteps,
      researcher: c.researcher === "rules" ? "rules" : "llm",
      protocol: c.protocol ?? "playground",
      ...(demo ? { coder: "demo" as const } : {}),
    };
    return { run: () => void runs.start(task, o) };
  };

  const mine = stored.records.filter((r) => r.trajectory.versions.task.id === task.id).sort((a, b) => a.key.localeCompare(b.key));
  const c = models.coder;

  return (
    <div className="agent-panel" data-testid="agent-panel">
      <div className="agent-form">
        <div className="agent-model">
          Coder model: <code data-testid="coder-model">{modelLabel(c.kind, c.model, c.webllmModel, c.scriptName)}</code>{" "}
          <span className="muted small">(change it in Settings)</span>
        </div>
        <label>
          Setting
          <select value={opts.setting} onChange={(e) => setOpts({ ...opts, setting: e.target.value as AgentSetting })} aria-label="Setting">
            {AGENT_SETTINGS.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
          <span className="muted small">{SETTING_HINTS[opts.setting]}</span>
        </label>
        <label>
          Protocol
          <select
            value={opts.protocol}
            onChange={(e) => setOpts({ ...opts, protocol: e.target.value as ProtocolProfile })}
            aria-label="Protocol"
          >
            {PROTOCOL_PROFILES.map((p) => (
              <option key={p} value={p}>
                {p}
              </option>
            ))}
          </select>
          <span className="muted small">{PROTOCOL_HINTS[opts.protocol]}</span>
        </label>
        <fieldset className="levels" aria-label="Feedback levels">
          <legend>Levels</legend>
          {LEVELS.filter((l) => l <= cap).map((l) => (
            <label key={l}>
              <input
                type="checkbox"
                aria-label={`Level L${l}`}
                checked={opts.levels.includes(l)}
                onChange={(e) =>
                  setOpts({ ...opts, levels: e.target.checked ? [...opts.levels, l].sort() : opts.levels.filter((x) => x !== l) })
                }
              />
              L{l}
            </label>
          ))}
        </fieldset>
        <label>
          Max turns
          <input
            className="num"
            inputMode="numeric"
            value={turnsText}
            onChange={(e) => {
              setTurnsText(e.target.value);
              const n = intIn(e.target.value, 50);
              if (n !== null) setOpts({ ...opts, maxTurns: n });
            }}
            aria-label="Max turns"
          />
        </label>
        <label>
          Max steps
          <input
            className="num"
            inputMode="numeric"
            value={stepsText}
            onChange={(e) => {
              setStepsText(e.target.value);
              const n = intIn(e.target.value, 20);
              if (n !== null) setOpts({ ...opts, maxSteps: n });
            }}
            aria-label="Max steps"
          />
        </label>
        <label>
          Researcher
          <select
            value={opts.researcher}
            onChange={(e) => setOpts({ ...opts, researcher: e.target.value as "rules" | "llm" })}
            aria-label="Agent researcher"
          >
            <option value="rules">rules (offline)</option>
            <option value="llm">llm (researcher model)</option>
          </select>
        </label>
        <div className="buttons">
          {state.running ? (
            <button type="button" className="stop" onClick={() => runs.stop(task.id)}>
              Stop agent
            </button>
          ) : (
            <>
              <button type="button" className="primary" onClick={run} disabled={problems.length > 0}>
                Run agent
              </button>
              {hasDemo(task.id) && (
                <button
                  type="button"
                  onClick={runDemo}
                  data-testid="agent-demo"
                  title={`A scripted model from examples/ answers (no endpoint, no download): ${demoOptions}`}
                >
                  Run the offline demo
                </button>
              )}
              {hasDemo(task.id) && (
                <span className="muted small" data-testid="agent-demo-note">
                  The demo runs with its own options ({demoOptions}), not those above.
                </span>
              )}
            </>
          )}
        </div>
      </div>
      {problems.map((p) => (
        <div key={p} className="field-error">
          {p}
        </div>
      ))}
      {state.running && (
        <div className="panel agent-live" role="status" data-testid="agent-live">
          <span className="spinner" aria-hidden="true" /> {state.phase || "working…"}
          {progress && (
            <div className="model-progress">
              Loading {progress.role} model: {Math.round(progress.progress * 100)}% — {progress.text}
              <progress value={progress.progress} max={1} />
            </div>
          )}
        </div>
      )}
      {state.ended && !state.running && (
        <div
          className={`panel ${state.ended.kind === "error" ? "error" : state.ended.kind === "stopped" ? "warning" : "ok"}`}
          role={state.ended.kind === "error" ? "alert" : "status"}
          data-testid="agent-outcome"
        >
          {state.ended.message}
        </div>
      )}
      <h3>Episodes of this task</h3>
      {mine.length === 0 ? (
        <p className="muted">No agent runs stored for this task yet.</p>
      ) : (
        mine.map((r) => (
          <EpisodeView
            key={r.key}
            t={r.trajectory}
            imported={r.source === "import"}
            ws={ws}
            resume={!state.running && r.source !== "import" && !r.trajectory.finished ? resumeOf(r.trajectory) : null}
          />
        ))
      )}
    </div>
  );
}
