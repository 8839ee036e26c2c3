import react from "@vitejs/plugin-react";
import { defineConfig } from "vite";
import { viteStaticCopy } from "vite-plugin-static-copy";
import { bundleText } from "./scripts/bundle-text-plugin.ts";
import { PYODIDE_FILES } from "./src/python/box-protocol.ts";

/** Cross-origin isolation: SharedArrayBuffer (the Pyodide interrupt) needs both headers. */
const isolation = {
  "Cross-Origin-Opener-Policy": "same-origin",
  "Cross-Origin-Embedder-Policy": "require-corp",
};

/** Chunk of a bundled task file (`/tasks/<folder>/...?raw`, not task.json): `task-<folder>`; null for other modules. */
function taskChunkName(id: string): string | null {
  const m = /\/tasks\/([^/]+)\/(.+)\?raw$/.exec(id);
  return m && m[2] !== "task.json" ? `task-${m[1]}` : null;
}

export default defineConfig({
  plugins: [
    react(),
    bundleText(),
    // Pyodide's files served at /pyodide/ so the page works offline.
    viteStaticCopy({
      targets: PYODIDE_FILES.map((f) => ({ src: `node_modules/pyodide/${f}`, dest: "pyodide" })),
    }),
  ],
  // rehype-katex carries an older katex whose HTML does not match the katex CSS the page imports:
  // resolve every `katex` import to the project's copy so markup and stylesheet agree.
  resolve: { dedupe: ["katex"] },
  server: { headers: isolation },
  // `PORT=4400 npm start` when 4173 is taken.
  preview: { headers: isolation, port: Number(process.env.PORT ?? 4173), strictPort: true },
  optimizeDeps: { exclude: ["pyodide"] },
  build: {
    chunkSizeWarningLimit: 8000,
    rolldownOptions: {
      output: {
        // A task folder's files (fetched when the task is opened; src/ui/tasks/catalog.ts) as one chunk per folder.
        // task.json stays out: the list reads every task.json at start.
        codeSplitting: { groups: [{ name: (id: string) => taskChunkName(id) }] },
      },
    },
  },
});
