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
  build: { chunkSizeWarningLimit: 8000 },
});
