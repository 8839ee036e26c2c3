/**
 * Protocol profiles: `reference` behaves like the official RECODE-H harness
 * (ChunyuMiao98/RECODE-H) wherever it differs from the paper's text or from
 * this playground's choices, so that numbers can be set beside the paper's;
 * `playground` keeps the playground's documented choices. docs/protocol.md
 * lists every difference with its place in the official code.
 */
import type { AgentSetting } from "./agent/types";
import { type FeedbackLevel, type FeedbackRecord, renderForAgent, renderTestLog } from "./feedback";
import type { RunResult } from "./results";
import type { Sampling, SeatSampling } from "./sampling";

/** The protocol profiles are declared in vocabulary.ts. */
export { PROTOCOL_PROFILES, type ProtocolProfile } from "./vocabulary";

import { PROTOCOL_PROFILES, type ProtocolProfile } from "./vocabulary";

/** The profile of records written before profiles existed, and of runs that name none. */
export const DEFAULT_PROTOCOL: ProtocolProfile = "playground";

/** Check a profile name. @throws Error naming `where` and the known profiles. */
export function parseProtocol(text: string, where = "--protocol"): ProtocolProfile {
  if ((PROTOCOL_PROFILES as readonly string[]).includes(text)) return text as ProtocolProfile;
  throw new Error(`${where}: "${text}" is not a protocol profile; use ${PROTOCOL_PROFILES.join(" or ")}`);
}

/**
 * Whether turn 0 is computed once and shared by every level. Playground: in
 * every setting. Reference: only in `memory_agent` (the official harness keeps
 * a seed per model and task for that setting and regenerates turn 0 at every
 * level in the others).
 */
export function sharesTurn0(profile: ProtocolProfile, setting: AgentSetting): boolean {
  return profile === "playground" || setting === "memory_agent";
}

/** What the agent is handed after a failing turn. */
export interface AgentFeedback {
  /** The researcher's feedback as rendered for the level (reference: "No feedback" at L0); "" when the agent gets none. */
  feedback: string;
  /** The test log of the last submission, or "" when this setting does not see it. */
  testLog: string;
  /** Everything together, as the trajectory records it (`feedbackText`). */
  text: string;
}

/**
 * The official harness's rendering of a record (its `format_feedback`): per
 * item `Feedback i:` with the interface and description (L1), the analysis
 * (L2), the actionable feedback (L3) and the direct code feedback (L4), each
 * as the researcher wrote it; the category is never shown; "No feedback" when
 * nothing is shown.
 */
export function renderReferenceFeedback(record: FeedbackRecord | null, level: FeedbackLevel): string {
  const out: string[] = [];
  (record?.items ?? []).forEach((item, i) => {
    if (level < 1) return;
    const lines = [`Feedback ${i}:`, `Interface: ${item.interface}`, `Description: ${item.description}`];
    if (level > 1) lines.push(`Analysis: ${item.analysis}`);
    if (level > 2) lines.push(`Actionable Feedback: ${item.actionable_feedback}`);
    if (level > 3) lines.push(`Direct code feedback: ${item.direct_code_feedback}`);
    out.push(lines.join("\n"));
  });
  return out.length ? out.join("\n") : "No feedback";
}

/**
 * What the agent receives after a failing turn, by profile and setting.
 * Playground: the test log and the level's feedback (category shown from L1,
 * code removed below L4) in every setting. Reference: `memory_agent` gets the
 * test log (as the result of its last action) and the feedback; `agent` and
 * `baseline` get the feedback only; fields verbatim, no category.
 */
export function agentFeedback(
  profile: ProtocolProfile,
  setting: AgentSetting,
  record: FeedbackRecord | null,
  run: RunResult,
  level: FeedbackLevel,
): AgentFeedback {
  if (profile === "playground") {
    const text = renderForAgent(record, run, level);
    return { feedback: text, testLog: "", text };
  }
  const feedback = renderReferenceFeedback(record, level);
  const testLog = setting === "memory_agent" ? renderTestLog(run) : "";
  return { feedback, testLog, text: testLog ? `${testLog}\n\n${feedback}` : feedback };
}

/**
 * The decoding settings a seat runs with under a profile. Reference: OpenAI
 * models run at the provider's default temperature (the official harness
 * leaves temperature out for them), unless the seat sets one.
 */
export function profileSampling(profile: ProtocolProfile, spec: string, s: Sampling): Sampling {
  if (profile !== "reference" || !spec.toLowerCase().startsWith("openai:") || s.temperature !== undefined) return s;
  return { ...s, temperature: null };
}

/** Both seats' settings under a profile (see {@link profileSampling}). */
export function profileSeatSampling(profile: ProtocolProfile, coderSpec: string, researcherSpec: string, s: SeatSampling): SeatSampling {
  return { coder: profileSampling(profile, coderSpec, s.coder), researcher: profileSampling(profile, researcherSpec, s.researcher) };
}

/** How many hits RETRIEVE returns: 3 in the playground, 5 in the official harness. */
export function retrieveTopK(profile: ProtocolProfile): number {
  return profile === "reference" ? 5 : 3;
}
