/** Settings: where Pyodide and its packages come from, and the coder and researcher models (persisted). */
import { useState } from "react";
import { defaultIndexURL, PYODIDE_CDN } from "../../python/browser";
import { useObservable, useServices } from "../services";
import { ModelSeat } from "./ModelSettings";

function checkUrl(v: string): string | null {
  if (v.trim() === "") return null;
  try {
    new URL(v.trim(), location.href);
    return null;
  } catch {
    return `"${v}" is not a URL`;
  }
}

/** A dialog-like panel; `onClose` hides it. */
export function SettingsPanel({ onClose }: { onClose: () => void }) {
  const services = useServices();
  const settings = useObservable(services.settings);
  const [indexURL, setIndexURL] = useState(settings.indexURL);
  const [packageBaseUrl, setPackageBaseUrl] = useState(settings.packageBaseUrl);
  const models = useObservable(services.models);
  const [coder, setCoder] = useState(models.coder);
  const [researcher, setResearcher] = useState(models.researcher);
  const errors = [checkUrl(indexURL), checkUrl(packageBaseUrl)];
  const save = async () => {
    if (errors.some(Boolean)) return;
    await services.saveModelSettings({ coder, researcher });
    await services.saveSettings({ indexURL, packageBaseUrl });
    onClose();
  };
  return (
    <div className="settings" role="dialog" aria-label="Settings">
      <h2>Settings</h2>
      <label>
        Pyodide URL (folder with pyodide.mjs)
        <input value={indexURL} placeholder={defaultIndexURL()} onChange={(e) => setIndexURL(e.target.value)} />
        {errors[0] && <span className="field-error">{errors[0]}</span>}
      </label>
      <label>
        Package source (folder with wheels such as numpy)
        <input value={packageBaseUrl} placeholder={PYODIDE_CDN} onChange={(e) => setPackageBaseUrl(e.target.value)} />
        {errors[1] && <span className="field-error">{errors[1]}</span>}
      </label>
      <p className="hint">Leave a field empty for the default. Changing a source restarts Python.</p>
      <h3>Models</h3>
      <ModelSeat seat="coder" value={coder} onChange={setCoder} />
      <ModelSeat seat="researcher" value={researcher} onChange={setResearcher} />
      <div className="buttons">
        <button type="button" onClick={onClose}>
          Cancel
        </button>
        <button type="button" className="primary" onClick={() => void save()} disabled={errors.some(Boolean)}>
          Save
        </button>
      </div>
    </div>
  );
}
