// Entry of the Node process that measures line coverage of canonical solutions
// under Pyodide (coverage-runner.ts). It runs recode_coverage.py, trusted
// tooling over the task author's own code, in a Pyodide instance of its own:
// never the harness's instance, and never candidate code. Where bubblewrap
// works the process runs in the same box as Pyodide's worker (node-box.ts).
//
// Messages (the channel on descriptor 3, box-channel.ts): host -> {type: "init", options} then {type: "measure", id,
// files, config, packages}; process -> {type: "ready", version} or
// {type: "init-error", message}, then per measure {type: "result", id, text}
// or {type: "error", id, message}.
import { readFileSync } from "node:fs";
import { loadPyodide } from "pyodide";
import { register } from "tsx/esm/api";

register();
const { hostChannel } = await import("./box-channel.ts");

const LIB = "/lib/recode-coverage";
const ROOT = "/tmp/recode-coverage";
const here = new URL(".", import.meta.url);
/** @type {import("pyodide").PyodideAPI | null} */
let py = null;
/** @type {((config: string) => string) | null} */
let measure = null;
let queue = Promise.resolve();

async function init(options) {
  try {
    py = await loadPyodide({ ...options, fullStdLib: false, env: { PYTHONHASHSEED: "0", HOME: "/home/pyodide" } });
    py.FS.mkdirTree(LIB);
    py.FS.mkdirTree("/home/pyodide");
    for (const name of ["recode_check.py", "recode_coverage.py"])
      py.FS.writeFile(`${LIB}/${name}`, readFileSync(new URL(name, here), "utf8"));
    py.setStdin({ stdin: () => null });
    py.runPython(`import sys\nsys.path.insert(0, "${LIB}")\nsys.dont_write_bytecode = True`);
    measure = py.runPython("import recode_coverage; recode_coverage.measure_json");
    const version = String(py.runPython("import sys; sys.version.split()[0]"));
    host.send({ type: "ready", version: `${version} (pyodide ${py.version})` });
  } catch (e) {
    host.send({ type: "init-error", message: `Pyodide could not start: ${e.message}` });
  }
}

async function run(msg) {
  const dir = `${ROOT}/${msg.id}`;
  try {
    if (!py || !measure) throw new Error("Pyodide is not loaded");
    if (msg.packages.length > 0) await py.loadPackage(msg.packages, { messageCallback: () => {} });
    for (const [rel, text] of Object.entries(msg.files)) {
      const path = `${dir}/${rel}`;
      py.FS.mkdirTree(path.slice(0, path.lastIndexOf("/")));
      py.FS.writeFile(path, text);
    }
    const text = measure(JSON.stringify({ ...msg.config, workdir: dir }));
    host.send({ type: "result", id: msg.id, text });
  } catch (e) {
    host.send({
      type: "error",
      id: msg.id,
      message: String(e.message ?? e)
        .split("\n")
        .slice(-3)
        .join(" "),
    });
  } finally {
    try {
      py?.runPython(`import shutil; shutil.rmtree(${JSON.stringify(dir)}, ignore_errors=True)`);
    } catch {
      /* nothing to remove */
    }
  }
}

// The host is gone (the channel closed): so is this process.
const host = hostChannel((msg) => {
  if (msg?.type === "init") queue = queue.then(() => init(msg.options));
  else if (msg?.type === "measure") queue = queue.then(() => run(msg));
});
