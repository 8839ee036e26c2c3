/**
 * Model settings of the coder (agent) and the researcher (llm) seats: an
 * OpenAI-compatible endpoint (presets for Ollama, vLLM, llama.cpp server and
 * OpenAI), WebLLM in the page (needs WebGPU), or a scripted model (an uploaded
 * script file, checked with loadScript). "Test connection" probes the endpoint.
 */

import { useEffect, useState } from "react";
import { loadScript, webLLMModelIds } from "../../core/providers";
import { parseSampling } from "../../core/sampling";
import type { EndpointPreset, ModelConfig, ModelKind } from "../../store/records";
import { ENDPOINT_PRESETS, type ModelRole, NEEDS_WEBGPU, ROLE_NAMES, webGpuAvailable } from "../models";
import { useObservable, useServices } from "../services";

/** Editor of one seat; `onChange` gets the edited configuration (saved by the settings panel). */
export function ModelSeat({ seat: role, value, onChange }: { seat: ModelRole; value: ModelConfig; onChange: (c: ModelConfig) => void }) {
  const services = useServices();
  const progress = useObservable(services.modelProgress);
  const [scriptError, setScriptError] = useState<string | null>(null);
  const [gpu, setGpu] = useState<boolean | null>(null);
  const [ids, setIds] = useState<string[] | null>(null);
  const [idsError, setIdsError] = useState<string | null>(null);
  const [check, setCheck] = useState<{ ok: boolean; text: string } | null>(null);
  const [checking, setChecking] = useState(false);
  const id = (f: string) => `${role}-${f}`;

  useEffect(() => {
    if (value.kind !== "webllm") return;
    let alive = true;
    void webGpuAvailable().then((ok) => {
      if (!alive) return;
      setGpu(ok);
      if (!ok) return;
      webLLMModelIds().then(
        (list) => alive && setIds(list),
        (e: Error) => alive && setIdsError(`The WebLLM model list could not be loaded: ${e.message}`),
      );
    });
    return () => {
      alive = false;
    };
  }, [value.kind]);

  const set = (p: Partial<ModelConfig>) => {
    setCheck(null);
    onChange({ ...value, ...p });
  };
  const upload = async (file: File | undefined) => {
    if (!file) return;
    const text = await file.text();
    try {
      loadScript(text, file.name);
    } catch (e) {
      // Keep the previous script: a broken file never replaces a working one.
      setScriptError(`${file.name}: ${(e as Error).message}`);
      return;
    }
    setScriptError(null);
    set({ scriptName: file.name, scriptText: text });
  };
  const test = async () => {
    setChecking(true);
    setCheck(null);
    try {
      setCheck({ ok: true, text: await services.testConnection(role, value) });
    } catch (e) {
      setCheck({ ok: false, text: (e as Error).message });
    } finally {
      setChecking(false);
    }
  };
  const preset = ENDPOINT_PRESETS.find((p) => p.id === value.preset);
  let samplingError = "";
  try {
    parseSampling(value.sampling, "sampling");
  } catch (e) {
    samplingError = (e as Error).message;
  }

  return (
    <fieldset className="model-seat" aria-label={ROLE_NAMES[role]} data-testid={`seat-${role}`}>
      <legend>{role === "coder" ? "Coder (the agent)" : "Researcher (the llm researcher)"}</legend>
      <div className="kinds" role="radiogroup" aria-label={`${ROLE_NAMES[role]} provider`}>
        {(
          [
            ["endpoint", "OpenAI-compatible endpoint"],
            ["webllm", "WebLLM (in this page)"],
            ["scripted", "Scripted (script file)"],
          ] as [ModelKind, string][]
        ).map(([k, label]) => (
          <label key={k}>
            <input type="radio" name={id("kind")} checked={value.kind === k} onChange={() => set({ kind: k })} />
            {label}
          </label>
        ))}
      </div>
      {value.kind === "endpoint" && (
        <div className="form-grid">
          <label>
            Server
            <select
              value={value.preset}
              aria-label={`${ROLE_NAMES[role]} server`}
              onChange={(e) => {
                const next = e.target.value as EndpointPreset;
                const was = ENDPOINT_PRESETS.find((p) => p.id === value.preset)?.baseURL;
                // Follow the preset's default URL unless a custom one was typed.
                set({ preset: next, baseURL: value.baseURL === "" || value.baseURL === was ? "" : value.baseURL });
              }}
            >
              {ENDPOINT_PRESETS.map((p) => (
                <option key={p.id} value={p.id}>
                  {p.label}
                </option>
              ))}
            </select>
          </label>
          <label>
            Base URL
            <input
              aria-label={`${ROLE_NAMES[role]} base URL`}
              value={value.baseURL}
              placeholder={preset?.baseURL}
              onChange={(e) => set({ baseURL: e.target.value })}
            />
          </label>
          <label>
            Model name
            <input
              aria-label={`${ROLE_NAMES[role]} name`}
              value={value.model}
              placeholder="e.g. qwen2.5-coder:7b"
              onChange={(e) => set({ model: e.target.value })}
            />
          </label>
          <label>
            API key
            <input
              aria-label={`${ROLE_NAMES[role]} API key`}
              type="password"
              autoComplete="off"
              value={value.apiKey}
              placeholder={value.preset === "openai" ? "required for OpenAI" : "usually not needed"}
              onChange={(e) => set({ apiKey: e.target.value })}
            />
          </label>
          <p className="hint wide">The API key is stored only in this browser (IndexedDB) and sent only to the base URL above.</p>
        </div>
      )}
      {value.kind === "webllm" && (
        <div>
          {gpu === false && (
            <div className="panel warning" role="alert" data-testid={`webgpu-${role}`}>
              {NEEDS_WEBGPU}
            </div>
          )}
          {gpu === null && <p className="muted">Checking for WebGPU…</p>}
          {gpu && (
            <label>
              WebLLM model
              <select
                value={value.webllmModel}
                onChange={(e) => set({ webllmModel: e.target.value })}
                aria-label={`${ROLE_NAMES[role]} WebLLM model`}
              >
                <option value="">{ids ? "choose a model" : "loading the list…"}</option>
                {(ids ?? []).map((m) => (
                  <option key={m} value={m}>
                    {m}
                  </option>
                ))}
              </select>
              <span className="hint">The weights download once (hundreds of MB to a few GB) and stay in the browser cache.</span>
            </label>
          )}
          {idsError && <div className="field-error">{idsError}</div>}
          {progress?.role === role && (
            <div className="model-progress">
              {Math.round(progress.progress * 100)}% — {progress.text}
              <progress value={progress.progress} max={1} />
            </div>
          )}
        </div>
      )}
      {value.kind === "scripted" && (
        <div>
          <label>
            Script file (JSON: replies or rules; the format is in docs/protocol.md, "Scripted models")
            <input
              type="file"
              accept=".json,application/json"
              aria-label={`${ROLE_NAMES[role]} script file`}
              onChange={(e) => void upload(e.target.files?.[0])}
            />
          </label>
          {value.scriptName && !scriptError && (
            <span className="muted small" data-testid={`script-${role}`}>
              loaded: {value.scriptName} (model id scripted:{value.scriptName})
            </span>
          )}
          {scriptError && (
            <span className="field-error" role="alert">
              {scriptError}
              {value.scriptName ? ` (still using ${value.scriptName})` : ""}
            </span>
          )}
        </div>
      )}
      {value.kind !== "scripted" && (
        <label className="sampling">
          Sampling
          <input
            aria-label={`${ROLE_NAMES[role]} sampling`}
            value={value.sampling}
            placeholder="temperature=0, top_p=1 (the protocol's)"
            onChange={(e) => set({ sampling: e.target.value })}
          />
          <span className="hint">
            e.g. <code>temperature=0.2, top_p=default, max_tokens=4096</code>; <code>default</code> leaves a setting to the server. Recorded
            in every trajectory.
          </span>
          {samplingError && (
            <span className="field-error" role="alert">
              {samplingError}
            </span>
          )}
        </label>
      )}
      <div className="buttons left">
        <button type="button" onClick={() => void test()} disabled={checking || (value.kind === "webllm" && gpu !== true)}>
          {checking ? "Testing…" : value.kind === "webllm" ? "Load model" : "Test connection"}
        </button>
        {check && (
          <span className={check.ok ? "check-ok" : "field-error"} role={check.ok ? "status" : "alert"} data-testid={`check-${role}`}>
            {check.text}
          </span>
        )}
      </div>
    </fieldset>
  );
}
