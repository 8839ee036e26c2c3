/**
 * Decoding settings of one model seat (the coder, the researcher). RECODE-H's
 * protocol decodes at temperature 0 and top-p 1 (RECODE-H.md, "Interaction
 * protocol"); some models refuse those (OpenAI's reasoning models) and some
 * studies want others, so each seat can set its own, and the trajectory
 * records what was used.
 */
import { z } from "zod";
import type { ChatModel, ChatRequest } from "./model";

/**
 * A number sets the parameter; `null` leaves it out of every request (the
 * server's default); an absent field keeps what the caller asks for (the
 * protocol's temperature 0 and top-p 1).
 */
export interface Sampling {
  /** 0-2. */
  temperature?: number | null;
  /** Above 0, at most 1. */
  topP?: number | null;
  /** Upper bound on completion tokens per call. */
  maxTokens?: number | null;
}

/** The settings of both seats, as run folders and trajectories record them. */
export interface SeatSampling {
  coder: Sampling;
  researcher: Sampling;
}

/** Zod schema of {@link Sampling} (run folders and trajectories). */
export const SamplingSchema: z.ZodType<Sampling> = z
  .object({
    temperature: z.number("must be a number from 0 to 2").min(0, "must be from 0 to 2").max(2, "must be from 0 to 2").nullable().optional(),
    topP: z
      .number("must be a number above 0, at most 1")
      .gt(0, "must be above 0, at most 1")
      .max(1, "must be above 0, at most 1")
      .nullable()
      .optional(),
    maxTokens: z
      .number("must be a whole number above 0")
      .int("must be a whole number above 0")
      .positive("must be a whole number above 0")
      .nullable()
      .optional(),
  })
  .strict();

/** Zod schema of {@link SeatSampling}. */
export const SeatSamplingSchema: z.ZodType<SeatSampling> = z.object({ coder: SamplingSchema, researcher: SamplingSchema }).strict();

const KEYS: Record<string, keyof Sampling> = {
  temperature: "temperature",
  top_p: "topP",
  topp: "topP",
  max_tokens: "maxTokens",
  maxtokens: "maxTokens",
};

/**
 * Parse `temperature=0.2,top_p=default,max_tokens=4096` (`default` leaves
 * the parameter out; "" is no setting).
 * @throws Error naming `flag`, the item and what is wrong with it.
 */
export function parseSampling(text: string, flag: string): Sampling {
  const out: Sampling = {};
  for (const item of text
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean)) {
    const m = /^([\w]+)\s*=\s*(\S+)$/.exec(item);
    if (!m) throw new Error(`${flag}: "${item}" is not key=value (keys: temperature, top_p, max_tokens)`);
    const key = KEYS[(m[1] as string).toLowerCase()];
    if (!key) throw new Error(`${flag}: unknown setting "${m[1]}" (keys: temperature, top_p, max_tokens)`);
    const raw = m[2] as string;
    out[key] = raw === "default" ? null : Number(raw);
  }
  const r = SamplingSchema.safeParse(out);
  if (!r.success) {
    const issue = r.error.issues[0];
    const name = { temperature: "temperature", topP: "top_p", maxTokens: "max_tokens" }[String(issue?.path[0])] ?? "a value";
    throw new Error(`${flag}: ${name} ${issue?.message ?? "is not valid"} (got "${text}")`);
  }
  return r.data;
}

/** `temperature=0.2, top_p=default` for messages and the page ("" for no setting). */
export function samplingText(s: Sampling): string {
  const parts: string[] = [];
  const show = (k: string, v: number | null | undefined) => {
    if (v !== undefined) parts.push(`${k}=${v === null ? "default" : v}`);
  };
  show("temperature", s.temperature);
  show("top_p", s.topP);
  show("max_tokens", s.maxTokens);
  return parts.join(", ");
}

/**
 * Both seats' decoding settings as one text, as a report's `sampling`
 * condition shows them (`coder temperature=0.2; researcher top_p=0.9`); ""
 * when neither seat sets anything (the protocol's temperature 0, top-p 1).
 */
export function seatSamplingText(s: SeatSampling | undefined): string {
  if (!s) return "";
  return (["coder", "researcher"] as const)
    .map((seat) => [seat, samplingText(s[seat])])
    .filter(([, text]) => text !== "")
    .map(([seat, text]) => `${seat} ${text}`)
    .join("; ");
}

/** The request with the seat's settings in place of the caller's. */
export function applySampling(req: ChatRequest, s: Sampling): ChatRequest {
  return {
    ...req,
    ...(s.temperature !== undefined ? { temperature: s.temperature } : {}),
    ...(s.topP !== undefined ? { topP: s.topP } : {}),
    ...(s.maxTokens !== undefined ? { maxTokens: s.maxTokens } : {}),
  };
}

/** The same model (id, meters and all) with every request decoded with `s`. */
export function withSampling<M extends ChatModel>(model: M, s: Sampling): M {
  if (samplingText(s) === "") return model;
  const chat = model.chat.bind(model);
  return Object.assign(Object.create(model) as M, { chat: (req: ChatRequest) => chat(applySampling(req, s)) });
}
