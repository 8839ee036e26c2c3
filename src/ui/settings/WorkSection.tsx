/**
 * Settings → Your work: export this browser's work (drafts, turns, levels
 * asked for) as one file, and open a student's file to read it.
 */
import { useState } from "react";
import { downloadText } from "../download";
import { useServices } from "../services";

/** Where the student's name is kept between visits. */
const NAME_KEY = "recode.student-name";

/** Export and open student work; `onOpened` closes the settings so the work shows. */
export function WorkSection({ onOpened }: { onOpened: () => void }) {
  const services = useServices();
  const [error, setError] = useState<string | null>(null);
  const [name, setName] = useState(() => {
    try {
      return globalThis.localStorage?.getItem(NAME_KEY) ?? "";
    } catch {
      return "";
    }
  });
  const keepName = (v: string) => {
    setName(v);
    try {
      globalThis.localStorage?.setItem(NAME_KEY, v);
    } catch {
      // private mode: the name lasts while the page is open
    }
  };
  const exportWork = async () => {
    setError(null);
    if (
      !name.trim() &&
      !window.confirm("Export without your name? The file will have no name in it or on it, so your teacher cannot tell whose work it is.")
    )
      return;
    try {
      await services.flushDrafts();
      const slug = name
        .trim()
        .replace(/[^\p{L}\p{N}]+/gu, "-")
        .replace(/^-|-$/g, "")
        .slice(0, 40);
      // A file with no name in it is told apart from a classmate's by the time it was made (to the second, UTC).
      const at = new Date().toISOString();
      downloadText(
        slug
          ? `recode-work-${slug}-${at.slice(0, 10)}.json`
          : `recode-work-unnamed-${at.slice(0, 19).replace(/:/g, "").replace("T", "-")}.json`,
        await services.teaching.exportWork(name),
        "application/json",
      );
    } catch (e) {
      setError(`Your work could not be exported: ${(e as Error).message}`);
    }
  };
  return (
    <section aria-label="Your work" data-testid="work-section">
      <h3>Your work</h3>
      <p className="hint">
        One file with your text for every task, your runs and the feedback levels you asked for: hand it in, or keep it.
      </p>
      <label>
        Your name (in the file you hand in)
        <input value={name} onChange={(e) => keepName(e.target.value)} maxLength={200} autoComplete="name" />
      </label>
      <div>
        <button type="button" onClick={() => void exportWork()}>
          Export my work
        </button>
      </div>
      <div>
        <label>
          Open students' work (one file, or a class's files at once)
          <input
            type="file"
            accept=".json,application/json"
            multiple
            data-testid="work-file-input"
            onChange={(e) => {
              const files = [...(e.target.files ?? [])];
              e.target.value = "";
              if (files.length === 0) return;
              setError(null);
              const teaching = services.teaching;
              const open =
                files.length === 1
                  ? files[0]?.text().then((text) => teaching.openWork(text, files[0]?.name ?? ""))
                  : Promise.all(files.map(async (f) => ({ text: await f.text(), name: f.name }))).then((list) =>
                      teaching.openClassWork(list),
                    );
              void open?.then(onOpened, (err: Error) => setError(err.message));
            }}
          />
        </label>
      </div>
      {error && (
        <p className="field-error" role="alert" data-testid="work-error">
          {error}
        </p>
      )}
    </section>
  );
}
