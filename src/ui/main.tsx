/** Page entry: builds the services (catalog, Python, storage) and renders the app. */
import "./editor/monaco";
import "./styles.css";
import "./feedback";
import "./agent";
import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { createBrowserRuntime } from "../python/browser";
import { App } from "./App";
import { createServices, ServicesContext } from "./services";
import { buildCatalog, bundledTaskFiles } from "./tasks/catalog";

const services = createServices(buildCatalog(bundledTaskFiles()), (s) =>
  createBrowserRuntime({ indexURL: s.indexURL, packageBaseUrl: s.packageBaseUrl }),
);
void services.start();

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
