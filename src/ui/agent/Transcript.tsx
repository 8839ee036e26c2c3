/**
 * An agent episode as a transcript, turn by turn and chat-style: what the
 * agent was told and answered (its reasoning kept apart), each action with
 * its result, the code it submitted with the change from the turn before, the
 * test results, and the researcher's feedback exactly as the agent received
 * it for the next turn.
 */
import { useState } from "react";
import { diffLines } from "../../core/diff-lines";
import { STATUS_LABEL } from "../../core/feedback";
import { lineCount } from "../../core/line-count";
import type { ChatMessage } from "../../core/model";
import { plural } from "../../core/plural";
import { printable } from "../../core/printable";
import { episodeOutcome, type Trajectory, type TrajectoryTurn } from "../../core/trajectory";
import { DiffView } from "../diff/DiffView";
import type { TaskWorkspace } from "../tasks/panels";
import { unreportedNote } from "./tokens";

/** Characters of a message shown before "Show all". */
const FOLD_AT = 1200;

/** How an unfinished episode is resumed, or why it cannot be (see AgentPanel). */
export type ResumeChoice = { run: () => void } | { blocked: string };

/** One episode: its configuration and outcome, Resume when it is unfinished, and its turns. */
export function EpisodeView({
  t,
  imported,
  ws,
  resume,
}: {
  t: Trajectory;
  imported: boolean;
  /** The open task's workspace, for "Load into editor"; null where no editor is open (the results page). */
  ws: TaskWorkspace | null;
  /** For an unfinished episode of this page (not while a run goes on): how to resume it, or why it cannot be. */
  resume: ResumeChoice | null;
}) {
  const c = t.config;
  const status = t.finished ? (t.stoppedReason ?? "") : "unfinished";
  return (
    <details className="episode" data-testid="episode" data-level={c.level} data-status={status} open={!t.finished || t.turns.length < 4}>
      <summary>
        <strong>L{c.level}</strong> <code>{c.model}</code> · {c.setting} · {c.protocol ?? "playground"} protocol · researcher {c.researcher}{" "}
        · {t.turns.length}/{c.maxTurns} turns · <span className={`episode-outcome ${status}`}>{episodeOutcome(t)}</span>
        {imported && <span className="muted small"> (imported)</span>}
      </summary>
      {resume && (
        <div className="episode-resume">
          <button
            type="button"
            onClick={"run" in resume ? resume.run : undefined}
            disabled={!("run" in resume)}
            title={"blocked" in resume ? resume.blocked : `Go on from turn ${t.turns.length}, with the options it was run with`}
            data-testid="episode-resume"
          >
            Resume
          </button>
          {"blocked" in resume && <span className="muted small"> {resume.blocked}</span>}
        </div>
      )}
      {t.error && (
        <div className="panel error" role="alert" data-testid="episode-error">
          {t.error}
        </div>
      )}
      {t.turns.map((turn, i) => (
        <TurnView key={turn.index} turn={turn} previous={i > 0 ? (t.turns[i - 1] ?? null) : null} ws={ws} />
      ))}
    </details>
  );
}

/** A message of the conversation as a chat bubble: long ones folded, reasoning apart. */
function Bubble({ role, children, reasoning }: { role: string; children: string; reasoning?: string }) {
  const [all, setAll] = useState(false);
  const long = children.length > FOLD_AT;
  return (
    <div className={`bubble ${role}`} data-role={role}>
      <div className="bubble-role">{role === "assistant" ? "agent" : role === "user" ? "to the agent" : role}</div>
      {reasoning && (
        <details className="bubble-reasoning">
          <summary>Reasoning ({reasoning.length} characters, never read for actions or code)</summary>
          <pre className="small-pre">{reasoning}</pre>
        </details>
      )}
      <pre className="small-pre">{long && !all ? `${children.slice(0, FOLD_AT)}…` : children}</pre>
      {long && (
        <button type="button" className="link" onClick={() => setAll((v) => !v)}>
          {all ? "Show less" : `Show all (${children.length - FOLD_AT} more characters)`}
        </button>
      )}
    </div>
  );
}

/** The conversation of a turn: the system prompt folded away, then every message in order. */
function Conversation({ messages }: { messages: readonly ChatMessage[] }) {
  const system = messages.filter((m) => m.role === "system");
  return (
    <div className="conversation" data-testid="conversation">
      {system.length > 0 && (
        <details className="bubble system">
          <summary>System prompt ({system.reduce((n, m) => n + m.content.length, 0)} characters)</summary>
          <pre className="small-pre">{system.map((m) => m.content).join("\n\n")}</pre>
        </details>
      )}
      {messages.map((m, i) =>
        m.role === "system" ? null : (
          // biome-ignore lint/suspicious/noArrayIndexKey: messages are ordered and never move
          <Bubble key={i} role={m.role} reasoning={m.reasoning}>
            {m.content}
          </Bubble>
        ),
      )}
    </div>
  );
}

/** One turn, chat-style. `previous`: the turn before (its code is what this turn's diff starts from). */
function TurnView({ turn, previous, ws }: { turn: TrajectoryTurn; previous: TrajectoryTurn | null; ws: TaskWorkspace | null }) {
  const [wholeFile, setWholeFile] = useState(false);
  const k = turn.run.counts;
  const verdict = turn.run.collectionError
    ? "collection error"
    : turn.run.allPassed
      ? "all tests passed"
      : `${k.passed}/${k.total} tests passed`;
  const diff = previous ? diffLines(previous.code, turn.code) : null;
  return (
    <div className="turn" data-testid="turn" data-turn={turn.index}>
      <div className="turn-head">
        <strong>Turn {turn.index}</strong>
        <span className={`turn-verdict ${turn.run.allPassed ? "ok" : "bad"}`}>{verdict}</span>
        <span className="muted small">
          {turn.actions.map((a) => a.type).join(" → ") || "no actions"} · {turn.tokens.prompt + turn.tokens.completion} tokens
          {unreportedNote(turn.tokens.unreported ?? 0)} ·{" "}
          {Math.round(turn.timings.agentMs + (turn.timings.retryWaitMs ?? 0) + turn.timings.testMs + turn.timings.researcherMs)} ms
          {turn.timings.retryWaitMs ? ` (${Math.round(turn.timings.retryWaitMs)} ms of it waiting to retry model calls)` : ""}
        </span>
        <span className="spacer" />
        {ws && (
          <button
            type="button"
            onClick={() => {
              if (
                ws.getCode() !== turn.code &&
                !window.confirm(
                  `Replace the editor text with turn ${turn.index}'s code? Your current text will be replaced (Ctrl+Z in the editor undoes it).`,
                )
              )
                return;
              ws.setCode(turn.code);
            }}
            title="Replace the editor text with this turn's code (asks first; Ctrl+Z undoes it)"
          >
            Load into editor
          </button>
        )}
      </div>
      <details>
        <summary>
          Conversation ({turn.messages.length} message{turn.messages.length === 1 ? "" : "s"}, {turn.actions.length} action
          {turn.actions.length === 1 ? "" : "s"})
        </summary>
        <Conversation messages={turn.messages} />
        {turn.actions.length > 0 && (
          <ol className="turn-actions" data-testid="turn-actions">
            {turn.actions.map((a, i) => (
              // biome-ignore lint/suspicious/noArrayIndexKey: actions are ordered steps
              <li key={i}>
                <strong>{a.type}</strong> {a.type === "REPLACE" ? "(new file text: see the code below)" : a.argument.slice(0, 120)}
                {a.result && <pre className="small-pre">{a.result.slice(0, 1500)}</pre>}
              </li>
            ))}
          </ol>
        )}
      </details>
      <details open={turn.index > 0}>
        <summary>
          {diff === null
            ? `Code (${plural(lineCount(turn.code), "line")})`
            : `Code: the change from turn ${turn.index - 1} (${diff.filter((l) => l.kind === "+").length} lines added, ${
                diff.filter((l) => l.kind === "-").length
              } removed)`}
        </summary>
        {diff !== null && !wholeFile ? (
          <DiffView lines={diff} empty={`The same code as turn ${turn.index - 1}.`} testId="turn-diff" />
        ) : (
          <pre className="code">{turn.code}</pre>
        )}
        {diff !== null && (
          <button type="button" className="link" onClick={() => setWholeFile((v) => !v)}>
            {wholeFile ? "Show the change" : "Show the whole file"}
          </button>
        )}
      </details>
      <details>
        <summary>Test results: {verdict}</summary>
        <ul className="turn-tests">
          {turn.run.collectionError && <li className="bad">collection error: {printable(turn.run.collectionError.message)}</li>}
          {turn.run.tests.map((t) => (
            <li key={t.id} className={t.status === "passed" || t.status === "xfail" ? "ok" : "bad"}>
              {STATUS_LABEL[t.status]} {t.id}
              {t.message && t.status !== "passed" ? ` — ${t.message.slice(0, 200)}` : ""}
            </li>
          ))}
        </ul>
      </details>
      {turn.feedbackText && (
        <details>
          <summary>Feedback the agent received</summary>
          <div className="bubble researcher" data-role="researcher">
            <div className="bubble-role">
              researcher, to the agent
              {turn.codeOmitted ? ` (${plural(turn.codeOmitted, "piece", "pieces")} of code left out at this level)` : ""}
            </div>
            <pre className="feedback-text">{turn.feedbackText}</pre>
          </div>
        </details>
      )}
    </div>
  );
}
