/**
 * The class file part of Settings: which class is active, load one from a file
 * or a URL, or leave it. Errors name the file, field and line (class-file.ts).
 */
import { useState } from "react";
import { describeClass } from "../../core/class-settings";
import { useObservable, useServices } from "../services";

/** Class file controls (applied at once, not on Save). */
export function ClassSection() {
  const teaching = useServices().teaching;
  const active = useObservable(teaching.classSettings);
  const [url, setUrl] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const attempt = async (load: () => Promise<unknown>) => {
    setBusy(true);
    setError(null);
    try {
      await load();
    } catch (e) {
      setError((e as Error).message);
    } finally {
      setBusy(false);
    }
  };
  return (
    <section aria-label="Class" data-testid="class-section">
      <h3>Class</h3>
      {active ? (
        <p>
          Active: <strong>{active.name}</strong> ({describeClass(active)}), from <code>{active.source}</code>.{" "}
          <button type="button" onClick={() => void attempt(() => teaching.leaveClass())} disabled={busy}>
            Leave the class
          </button>
        </p>
      ) : (
        <p className="hint">
          A class file picks the tasks, caps the feedback level, can hide "Apply" and fixes the researcher. Open the page with{" "}
          <code>?class=URL</code>, or load one here.
        </p>
      )}
      <label>
        Class file
        <input
          type="file"
          accept=".json,application/json"
          disabled={busy}
          data-testid="class-file-input"
          onChange={(e) => {
            const file = e.target.files?.[0];
            e.target.value = "";
            if (file) void attempt(async () => teaching.loadClass(await file.text(), file.name));
          }}
        />
      </label>
      <label>
        or its URL
        <span className="row">
          <input value={url} onChange={(e) => setUrl(e.target.value)} placeholder="https://school.example/week3.class.json" />
          <button type="button" disabled={busy || !url.trim()} onClick={() => void attempt(() => teaching.loadClassFromUrl(url.trim()))}>
            Load
          </button>
        </span>
      </label>
      {error && (
        <p className="field-error" role="alert" data-testid="class-error">
          {error}
        </p>
      )}
    </section>
  );
}
