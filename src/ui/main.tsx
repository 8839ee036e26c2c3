/**
 * Page entry: builds the services (catalog, Python, storage), starts Python at
 * once, and renders the app. The editor (Monaco) is fetched in parallel with
 * the app; panels, settings, the agent, the results page and renderers are
 * fetched when first opened.
 */
import "./styles.css";
// The theme is on the document before the first render (no light flash in a dark system).
import "./view-prefs";
import "./feedback";
import "./agent";
import "./console";
import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { createBrowserRuntime } from "../python/browser";
import { App, taskFromHash } from "./App";
import { preloadEditor } from "./editor/LazyEditor";
import { createServices, ServicesContext } from "./services";
import { bundledTaskLoaders, bundledTaskMetas, lazyCatalog } from "./tasks/catalog";

const services = createServices(lazyCatalog(bundledTaskMetas(), bundledTaskLoaders()), (s) =>
  createBrowserRuntime({ indexURL: s.indexURL, packageBaseUrl: s.packageBaseUrl }),
);
// Python first: its box starts loading Pyodide before anything else is fetched or rendered.
void services.start();
// Then what the open task needs: its files and the editor.
const first = taskFromHash();
if (first) void services.loadTask(first);
preloadEditor();

// Drafts are saved as you type; also save what is pending when the page is hidden or closed.
const flush = () => void services.flushDrafts();
window.addEventListener("pagehide", flush);
document.addEventListener("visibilitychange", () => {
  if (document.visibilityState === "hidden") flush();
});

const root = document.getElementById("root");
if (!root) throw new Error("index.html has no #root element");
createRoot(root).render(
  <StrictMode>
    <ServicesContext.Provider value={services}>
      <App />
    </ServicesContext.Provider>
  </StrictMode>,
);
