/**
 * Vite plugin: `import text, { sha256 } from "./file.ts?bundle"` gives the
 * module and everything it imports as the text of one self-contained classic
 * script (minified; a module worker cannot start from a blob in an opaque
 * origin, a classic one can, and can still `import()` blobs), and the SHA-256 of that text in base64 (for a
 * Content-Security-Policy hash source). The page hands such texts to its
 * Python box, which cannot load anything from the page's origin.
 * Works in `vite build` and in the dev server (rebuilt when a source changes).
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { build, type Plugin, type Rolldown } from "vite";

const SUFFIX = "?bundle";
const PREFIX = "\0bundle:";

/** The plugin; see the file comment. */
export function bundleText(): Plugin {
  return {
    name: "recode-bundle-text",
    enforce: "pre",
    async resolveId(id, importer) {
      if (!id.endsWith(SUFFIX)) return null;
      const resolved = await this.resolve(id.slice(0, -SUFFIX.length), importer, { skipSelf: true });
      if (!resolved) throw new Error(`${importer ?? "?"}: cannot resolve ${id}`);
      return `${PREFIX}${resolved.id}`;
    },
    async load(id) {
      if (!id.startsWith(PREFIX)) return null;
      const entry = id.slice(PREFIX.length);
      const result = await build({
        configFile: false,
        logLevel: "warn",
        publicDir: false,
        plugins: [pythonWithoutComments()],
        build: {
          write: false,
          minify: true,
          emptyOutDir: false,
          lib: { entry, formats: ["iife"], name: "recodeBundle", fileName: "bundle" },
          rolldownOptions: { output: { codeSplitting: false } },
        },
      });
      const outputs = (Array.isArray(result) ? result : [result]) as Rolldown.RolldownOutput[];
      const chunks = outputs.flatMap((o) => o.output).filter((c): c is Rolldown.OutputChunk => c.type === "chunk");
      if (chunks.length !== 1) throw new Error(`${entry}: expected one chunk, got ${chunks.length}`);
      const chunk = chunks[0] as Rolldown.OutputChunk;
      for (const m of chunk.moduleIds) if (!m.startsWith("\0")) this.addWatchFile(m);
      // The text may go into an inline <script>: it must not close the element.
      const text = chunk.code.replaceAll("</script", "<\\/script");
      const sha256 = createHash("sha256").update(text).digest("base64");
      return `export default ${JSON.stringify(text)};\nexport const sha256 = ${JSON.stringify(sha256)};\n`;
    },
  };
}

/**
 * Python source without its comment lines (a line that is only a comment, outside a triple-quoted string): the
 * harness's sources travel inside the box's worker script, which every start of the page loads, so every byte counts. Docstrings and code stay, so
 * the code is the same; line numbers in the harness's own tracebacks are not the files'.
 */
export function stripPythonComments(source: string): string {
  let inString = false;
  const kept: string[] = [];
  for (const line of source.split("\n")) {
    if (inString || !/^\s*#/.test(line)) kept.push(line);
    const quotes = (line.match(/"""|'''/g) ?? []).length;
    if (quotes % 2 === 1) inString = !inString;
  }
  return kept.join("\n");
}

/**
 * Python source with each docstring (a string statement that starts a line, outside a string, first in the
 * module or right after a `def` or `class` header) replaced by `""` at its indentation: the same code (an
 * empty string statement, a body never left empty), without the text (`__doc__` is then ""; the harness reads
 * none). Run after {@link stripPythonComments}.
 */
export function stripPythonDocstrings(source: string): string {
  const lines = source.split("\n");
  const kept: string[] = [];
  let inString = false;
  // A docstring may come next (the module's start, or a def or class header just ended); inside a header.
  let docNext = true;
  let inHeader = false;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string;
    const trimmed = line.trim();
    if (!inString && trimmed !== "") {
      if (docNext && trimmed.startsWith('"""')) {
        let end = i;
        if ((trimmed.match(/"""/g) ?? []).length < 2) {
          end = i + 1;
          while (end < lines.length && !(lines[end] as string).includes('"""')) end++;
        }
        // Only a string that ends its line (nothing after the closing quotes) is a statement of its own.
        if (end < lines.length && (lines[end] as string).trimEnd().endsWith('"""')) {
          kept.push(`${line.slice(0, line.length - line.trimStart().length)}""`);
          docNext = false;
          i = end;
          continue;
        }
      }
      docNext = false;
      if (/^(async\s+def|def|class)\s/.test(trimmed)) inHeader = true;
      if (inHeader && trimmed.endsWith(":")) {
        inHeader = false;
        docNext = true;
      }
    }
    kept.push(line);
    const quotes = (line.match(/"""|'''/g) ?? []).length;
    if (quotes % 2 === 1) inString = !inString;
  }
  return kept.join("\n");
}

/** For the bundled script: `./x.py?raw` imports give the Python source without its comment lines and docstrings. */
function pythonWithoutComments(): Plugin {
  return {
    name: "recode-python-without-comments",
    enforce: "pre",
    load(id) {
      const [file, query] = id.split("?");
      if (query !== "raw" || !file?.endsWith(".py")) return null;
      this.addWatchFile(file);
      return `export default ${JSON.stringify(stripPythonDocstrings(stripPythonComments(readFileSync(file, "utf8"))))};\n`;
    },
  };
}
