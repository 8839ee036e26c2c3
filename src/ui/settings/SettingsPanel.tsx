/**
 * Settings, a modal dialog (Escape or Cancel closes it): the theme, where
 * Pyodide and its packages come from, the coder and researcher models
 * (persisted), the class file (applied at once), and the page's keyboard
 * shortcuts.
 */
import { useState, useSyncExternalStore } from "react";
import { defaultIndexURL, PYODIDE_CDN } from "../../python/browser";
import { useModalDialog } from "../modal-dialog";
import { useObservable, useServices } from "../services";
import { SHORTCUTS } from "../shortcuts";
import { setViewPrefs, type ThemeChoice, viewPrefs } from "../view-prefs";
import { ClassSection } from "./ClassSection";
import { ModelSeat } from "./ModelSettings";
import { TaskPacksSection } from "./TaskPacksSection";
import { WorkSection } from "./WorkSection";

function checkUrl(v: string): string | null {
  if (v.trim() === "") return null;
  try {
    new URL(v.trim(), location.href);
    return null;
  } catch {
    return `"${v}" is not a URL`;
  }
}

/** The settings dialog, shown modal while mounted; `onClose` is called when it closes (Escape, Cancel, Save). */
export function SettingsPanel({ onClose }: { onClose: () => void }) {
  const services = useServices();
  const dialog = useModalDialog();
  const view = useSyncExternalStore(viewPrefs.subscribe, viewPrefs.get);
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
    dialog.close();
  };
  return (
    <dialog ref={dialog.ref} className="settings" aria-label="Settings" onClose={onClose} data-testid="settings">
      <h2>Settings</h2>
      <label>
        Theme
        <select value={view.theme} onChange={(e) => setViewPrefs({ theme: e.target.value as ThemeChoice })} data-testid="theme-choice">
          <option value="system">The system's (now {matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light"})</option>
          <option value="light">Light</option>
          <option value="dark">Dark</option>
        </select>
      </label>
      <label className="inline">
        <input type="checkbox" checked={view.wordWrap} onChange={(e) => setViewPrefs({ wordWrap: e.target.checked })} />
        Wrap long lines in the editor
      </label>
      <h3>Python</h3>
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
      <ClassSection />
      <TaskPacksSection onImport={() => dialog.close()} />
      <WorkSection onOpened={() => dialog.close()} />
      <h3>Keyboard shortcuts</h3>
      <table className="shortcuts" data-testid="shortcuts">
        <tbody>
          {SHORTCUTS.map((k) => (
            <tr key={k.keys}>
              <td>
                <kbd>{k.keys}</kbd>
              </td>
              <td>{k.does}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <div className="buttons">
        <button type="button" onClick={() => dialog.close()}>
          Cancel
        </button>
        <button type="button" className="primary" onClick={() => void save()} disabled={errors.some(Boolean)}>
          Save
        </button>
      </div>
    </dialog>
  );
}
