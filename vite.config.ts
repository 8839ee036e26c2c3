import zlib from "node:zlib";
import react from "@vitejs/plugin-react";
import { defineConfig, type Plugin } from "vite";
import { compression, defineAlgorithm } from "vite-plugin-compression2";
import { VitePWA } from "vite-plugin-pwa";
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

/** `npm start` (vite preview) says where the playground is and how to stop it, once it listens. */
const startMessage: Plugin = {
  name: "recode-start-message",
  configurePreviewServer(server) {
    server.httpServer?.once("listening", () =>
      setTimeout(() => {
        const url = server.resolvedUrls?.local[0] ?? `http://localhost:${server.config.preview.port}/`;
        console.log(`\n  RECODE playground: open ${url}  (press Ctrl-C here to stop the server)\n`);
      }),
    );
  },
};

/**
 * A student build (`npm run build -- --student`, mode `student`): every task's canonical.py is bundled
 * empty, so no canonical solution reaches the page; L4 is then unavailable (docs/teaching.md).
 */
function studentBuild(on: boolean): Plugin {
  return {
    name: "recode-student-build",
    enforce: "pre",
    load(id) {
      if (on && /\/tasks\/[^/]+\/canonical\.py\?raw$/.test(id)) return "export default '';";
      // The offline demo's scripts hold working solutions too.
      if (on && /\/examples\/[^/]+\.script\.json\?raw$/.test(id)) return "export default '';";
      return null;
    },
  };
}

export default defineConfig(({ mode }) => ({
  // Relative URLs throughout: dist/ works from any folder of any server (a school server's /playground/, a
  // GitHub project page), with no --base to match (docs/hosting.md).
  base: "./",
  define: { __RECODE_STUDENT__: JSON.stringify(mode === "student") },
  plugins: [
    studentBuild(mode === "student"),
    react(),
    startMessage,
    bundleText(),
    // Pyodide's files served at /pyodide/ so the page works offline.
    viteStaticCopy({
      targets: PYODIDE_FILES.map((f) => ({ src: `node_modules/pyodide/${f}`, dest: "pyodide" })),
    }),
    // Precompressed .gz and .br copies of the large files (the Python runtime, the app's scripts and styles),
    // for hosts that serve them (docs/hosting.md). Pyodide's files are copied by the plugin itself, so that
    // they are compressed whatever order the copy plugins run in.
    // Brotli at quality 9: within 12% of quality 11 on pyodide.asm.wasm (3.10 against 2.74 MB) at a tenth of the
    // build time (8 s against 90 s). python_stdlib.zip is left as it is (zip is compressed already).
    compression({
      include: /\.(js|mjs|css|html|json|wasm|svg|ttf)$/,
      threshold: 10 * 1024,
      algorithms: [
        defineAlgorithm("gzip", { level: 9 }),
        defineAlgorithm("brotliCompress", { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 9 } }),
      ],
      artifacts: () => PYODIDE_FILES.map((f) => ({ src: `node_modules/pyodide/${f}`, replace: (dest: string) => `${dest}/pyodide/${f}` })),
      logLevel: "silent",
    }),
    // The service worker (src/sw.ts): precaches the app and Pyodide's files, keeps package wheels once loaded,
    // and waits for the page to accept a new version (docs/hosting.md).
    VitePWA({
      strategies: "injectManifest",
      srcDir: "src",
      filename: "sw.ts",
      registerType: "prompt",
      injectRegister: false,
      manifest: false,
      injectManifest: {
        globPatterns: ["**/*.{js,mjs,css,html,json,wasm,zip,svg,ttf,woff,woff2,png,ico}"],
        // KaTeX's fonts are precached in WOFF2 only (every browser that runs the page reads it first).
        globIgnores: ["**/*.{gz,br}", "**/KaTeX_*.{ttf,woff}"],
        // Pyodide's WebAssembly (about 9.6 MB) and the largest script chunks must fit.
        maximumFileSizeToCacheInBytes: 32 * 1024 * 1024,
      },
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
}));
