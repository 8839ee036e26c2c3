/**
 * The box Pyodide runs in for `recode` in Node (node-box.ts). Candidate Python
 * cannot reach JavaScript (the sealed bridge, verdict-attacks.test.ts); this
 * box is what holds if it ever did: JavaScript run in the box's command line
 * tries each route out. A local catcher server on the loopback address must
 * receive nothing, the host's secrets must not be in the environment, the
 * tasks (canonical solutions, recorded values) must not be readable, nothing
 * outside /tmp writable, and no process may outlive the box. The same probe
 * outside the box succeeds, which shows the attacks are real.
 */
import { execFileSync, spawn, spawnSync } from "node:child_process";
import { chmodSync, cpSync, existsSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BUILTIN_TASKS, loadTaskDir } from "../../src/cli/task-fs";
import { createNodePyodideRuntime } from "../../src/python/node";
import { nodeBoxHandle, pyodideBoxCommand, resolvePyodideBox } from "../../src/python/node-box";
import { PyodideRuntime } from "../../src/python/pyodide-runtime";
import { taskRunRequest } from "../../src/python/runtime";
import { type Catcher, startCatcher } from "../helpers/catcher";
import { probe as probeRun } from "../helpers/probe";

const SECRET = "sk-test-secret-never-in-the-box";
const CANONICAL = fileURLToPath(new URL("../../tasks/pass-at-k/canonical.py", import.meta.url));
let catcher: Catcher;
let port = 0;
let hits: string[] = [];

beforeAll(async () => {
  process.env.OPENAI_API_KEY = SECRET;
  catcher = await startCatcher();
  port = catcher.port;
  hits = catcher.hits;
});
afterAll(async () => {
  delete process.env.OPENAI_API_KEY;
  await catcher.close();
});

/** JavaScript that tries every route out and prints what it reached, as JSON. */
const PROBE = `
const fs = require("node:fs");
const out = { env: Object.keys(process.env).filter((k) => String(process.env[k]).includes("sk-test")), read: [], wrote: [], net: "", spawned: "", uid: process.getuid(), devices: [] };
// The host's device nodes bound into the box: set to what they are (harmless where it succeeds).
const st = fs.statSync("/dev/null");
for (const [what, act] of [["mode", () => fs.chmodSync("/dev/null", st.mode & 0o7777)], ["owner", () => fs.chownSync("/dev/null", st.uid, st.gid)], ["times", () => fs.utimesSync("/dev/null", st.atime, st.mtime)]]) { try { act(); out.devices.push(what); } catch {} }
for (const p of [process.argv[1], "/etc/shadow", "/root", "/home"]) { try { fs.readFileSync(p); out.read.push(p); } catch (e) { if (e.code === "EISDIR") out.read.push(p); } }
// The box's own users, root and nobody; the host's would name others.
try { if (fs.readFileSync("/etc/passwd", "utf8").split("\\n").some((l) => l && !/^(root|nobody):/.test(l))) out.read.push("/etc/passwd (host users)"); } catch {}
for (const p of ["/usr/recode-x", process.cwd() + "/recode-x"]) { try { fs.writeFileSync(p, "x"); out.wrote.push(p); } catch {} }
try { require("node:child_process").spawn("sleep", ["61.2424"], { detached: true, stdio: "ignore" }).unref(); out.spawned = "started"; } catch (e) { out.spawned = e.code; }
fetch("http://127.0.0.1:" + process.argv[2] + "/leak").then((r) => r.text()).then((t) => { out.net = t; }, (e) => { out.net = "blocked " + (e.cause?.code ?? e.message); }).finally(() => console.log(JSON.stringify(out)));
`;

/** Run the probe (async: the catcher server lives in this process and must answer meanwhile). */
async function runProbe(
  boxed: boolean,
): Promise<{ env: string[]; read: string[]; wrote: string[]; net: string; spawned: string; uid: number; devices: string[] }> {
  let command = process.execPath;
  let args = ["-e", PROBE, CANONICAL, String(port)];
  if (boxed) {
    const box = pyodideBoxCommand();
    // The box's own command line, with the probe in place of the worker entry (and no IPC channel to expect).
    command = box.command;
    const boxArgs = box.args.slice(0, -1);
    for (const name of ["NODE_CHANNEL_FD", "NODE_CHANNEL_SERIALIZATION_MODE"]) {
      const i = boxArgs.findIndex((a, k) => a === "--setenv" && boxArgs[k + 1] === name);
      if (i >= 0) boxArgs.splice(i, 3);
    }
    args = [...boxArgs, "-e", PROBE, CANONICAL, String(port)];
  }
  const cwd = mkdtempSync(join(tmpdir(), "node-box-probe-"));
  const child = spawn(command, args, { env: process.env, stdio: ["ignore", "pipe", "pipe"], cwd });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d: Buffer) => {
    stdout += d.toString();
  });
  child.stderr.on("data", (d: Buffer) => {
    stderr += d.toString();
  });
  await new Promise((r) => child.on("close", r));
  rmSync(cwd, { recursive: true, force: true });
  expect(stderr).not.toMatch(/SyntaxError/);
  return JSON.parse(stdout.trim().split("\n").pop() as string);
}

function strays(): number {
  try {
    return execFileSync("pgrep", ["-f", "sleep 61.2424"], { encoding: "utf8" }).trim().split("\n").filter(Boolean).length;
  } catch {
    return 0;
  }
}

describe("the Pyodide box in Node", () => {
  it("is used here (bubblewrap works on this machine)", () => {
    expect(resolvePyodideBox("auto")).toBe("bwrap");
    expect(resolvePyodideBox("none")).toBe("thread");
  });

  it("outside the box, the probe reaches the secret, the tasks, the network and the host's processes", async () => {
    hits.length = 0;
    const r = await runProbe(false);
    expect(r.env).toContain("OPENAI_API_KEY");
    expect(r.read).toContain(CANONICAL);
    expect(r.read).toContain("/etc/passwd (host users)");
    if (process.getuid?.() === 0) expect(r.devices).toEqual(["mode", "owner", "times"]);
    expect(r.net).toBe("caught");
    expect(hits).toEqual(["/leak"]);
    expect(r.spawned).toBe("started");
    expect(strays()).toBeGreaterThan(0);
    spawnSync("pkill", ["-f", "sleep 61.2424"]);
  });

  it("inside the box: no secret, no task file, no network, no write outside /tmp, no process left behind", async () => {
    hits.length = 0;
    const r = await runProbe(true);
    expect(r.env).toEqual([]);
    expect(r.read).toEqual([]);
    expect(r.wrote).toEqual([]);
    // Run by root, the box is nobody's: it cannot change the host's device nodes bound into its /dev.
    expect(r.devices).toEqual([]);
    if (process.getuid?.() === 0) expect(r.uid).not.toBe(0);
    expect(r.net).toMatch(/^blocked/);
    expect(hits).toEqual([]);
    // A process it started died with the box.
    expect(strays()).toBe(0);
  });

  it("a descriptor inherited from whatever started recode (a shell's open folder) does not reach the box", async () => {
    const box = pyodideBoxCommand();
    // The box's command line with a script that lists its descriptors in place of the worker entry, started by a
    // shell that holds the host's root open on descriptor 200 (as \`exec 200</\` in a user's shell would).
    const list =
      "console.log(JSON.stringify(require('node:fs').readdirSync('/proc/self/fd').map((n) => { try { return require('node:fs').readlinkSync('/proc/self/fd/' + n); } catch { return ''; } })))";
    const args = [...box.args.slice(0, -1), "-e", list];
    const outside = spawnSync("bash", ["-c", 'exec 200</ ; exec "$@"', "bash", process.execPath, "-e", list], { encoding: "utf8" });
    expect(JSON.parse(outside.stdout)).toContain("/");
    const inside = spawnSync("bash", ["-c", 'exec 200</ ; exec "$@"', "bash", box.command, ...args], { encoding: "utf8" });
    expect(inside.status, inside.stderr).toBe(0);
    const links = JSON.parse(inside.stdout) as string[];
    expect(links.length).toBeGreaterThan(0);
    expect(links).not.toContain("/");
  });

  it("in a worker thread too (no box), Python's sockets reach nothing and listen on nothing", async () => {
    hits.length = 0;
    const rt = createNodePyodideRuntime({ sandbox: "none" });
    await rt.ready();
    const probe = `import socket
def probe():
    out = []
    try:
        s = socket.create_connection(("127.0.0.1", ${port}), timeout=2)
        s.sendall(b"GET /leak HTTP/1.0\\r\\n\\r\\n")
        out.append(s.recv(10))
    except OSError as e:
        out.append("refused " + str(e.errno))
    try:
        srv = socket.socket()
        srv.bind(("127.0.0.1", 0))
        srv.listen()
        out.append("listening")
    except OSError as e:
        out.append("refused " + str(e.errno))
    return out
`;
    const r = await rt.run(probeRun(probe));
    await rt.dispose();
    expect(r.tests[0]?.stdout).toMatch(/PROBE \['refused \d+', 'refused \d+'\]/);
    expect(hits).toEqual([]);
  });

  it("Python sees the user id and the time zone a browser gives it, not the host's, in the box whatever snapshot a thread made", async () => {
    // The host's user id came through Node's process.getuid() (the box's user, nobody when recode runs as root,
    // or the user who runs recode). Local time followed the host's zone, and a start snapshot made in a worker
    // thread (which runs in the host's zone) held its offset (time.timezone) for the box too.
    const zone = process.env.TZ;
    process.env.TZ = "Asia/Kolkata";
    const snapshotDir = mkdtempSync(join(tmpdir(), "recode-host-zone-"));
    const see = probeRun(
      "import os, time\ndef probe():\n    return [os.getuid(), time.timezone, time.strftime('%z', time.localtime(0)), time.localtime(0).tm_hour]\n",
    );
    try {
      const thread = createNodePyodideRuntime({ sandbox: "none", warn: () => {}, snapshotDir });
      await thread.ready();
      const inThread = await thread.run(see);
      await thread.dispose();
      // A worker thread is in the host's process, and keeps the host's zone (docs/security.md); not its user id.
      expect(inThread.tests[0]?.stdout).toContain("PROBE [0, -19800, '+0530', 5]");
      const box = createNodePyodideRuntime({ sandbox: "auto", warn: () => {}, snapshotDir });
      await box.ready();
      const inBox = await box.run(see);
      await box.dispose();
      expect(inBox.tests[0]?.stdout).toContain("PROBE [0, 0, '+0000', 0]");
    } finally {
      if (zone === undefined) delete process.env.TZ;
      else process.env.TZ = zone;
      rmSync(snapshotDir, { recursive: true, force: true });
    }
  });

  it.each(["auto", "none"] as const)(
    "Python names nothing of the host: its environment, executable and arguments hold no host path (sandbox %s)",
    async (sandbox) => {
      // The folder recode runs from (the worker's script is in it): Emscripten takes the script's path as the
      // program's name, and would put it in os.environ["_"], sys.executable and sys.orig_argv.
      const root = fileURLToPath(new URL("../..", import.meta.url)).replace(/\/$/, "");
      const probe = `import os, sys
def probe():
    seen = {f"environ[{k!r}]": v for k, v in os.environ.items()}
    seen.update(executable=sys.executable, argv=repr(sys.argv), orig_argv=repr(getattr(sys, "orig_argv", [])), prefix=sys.prefix, exec_prefix=sys.exec_prefix)
    return sorted(k for k, v in seen.items() if ${JSON.stringify(root)} in str(v))
`;
      // Started afresh, then from the start snapshot the first start made (the interpreter's memory holds both).
      const snapshotDir = mkdtempSync(join(tmpdir(), "recode-host-names-"));
      try {
        for (const start of ["afresh", "from its start snapshot"]) {
          const rt = createNodePyodideRuntime({ sandbox, warn: () => {}, snapshotDir });
          await rt.ready();
          const r = await rt.run(probeRun(probe));
          await rt.dispose();
          expect(r.tests[0]?.stdout, start).toContain("PROBE []");
          if (start === "afresh") expect(readdirSync(snapshotDir).filter((f) => f.endsWith(".bin"))).toHaveLength(1);
        }
      } finally {
        rmSync(snapshotDir, { recursive: true, force: true });
      }
    },
  );

  it("runs the tasks, stops a loop with the interrupt, and leaves no process behind when disposed", async () => {
    const task = loadTaskDir(BUILTIN_TASKS, "pass-at-k");
    const pids: number[] = [];
    const rt = new PyodideRuntime({
      interruptGraceMs: 10_000, // generous: idle, the answer takes ~30 ms (a run once replaced here had lost its interrupt to the interpreter's poll, since kept)
      createWorker: () => {
        const handle = nodeBoxHandle();
        pids.push(handle.pid as number);
        return handle;
      },
    });
    await rt.ready();
    expect((await rt.run(taskRunRequest(task, task.canonical))).allPassed).toBe(true);
    const loop = await rt.run({ ...taskRunRequest(task, "while True:\n    pass\n"), timeLimitMs: 1500 });
    expect(loop.incident?.kind).toBe("timeout");
    expect((await rt.run(taskRunRequest(task, task.canonical))).allPassed).toBe(true);
    await rt.dispose();
    await new Promise((r) => setTimeout(r, 300));
    expect(pids.length).toBeGreaterThan(0);
    // The box's process, and with it every process in the box, is gone.
    for (const pid of pids) expect(existsSync(`/proc/${pid}`)).toBe(false);
  });

  it("a box killed during a run: the run ends with a clear status, and the next run works in a new box", async () => {
    const task = loadTaskDir(BUILTIN_TASKS, "pass-at-k");
    const pids: number[] = [];
    const rt = new PyodideRuntime({
      createWorker: () => {
        const handle = nodeBoxHandle();
        pids.push(handle.pid as number);
        return handle;
      },
    });
    try {
      await rt.ready();
      const spin = `${task.canonical}\n\nimport time\nwhile True:\n    time.sleep(0.01)\n`;
      const running = rt.run({ ...taskRunRequest(task, spin), timeLimitMs: 60_000 });
      await new Promise((r) => setTimeout(r, 1500));
      process.kill(pids[0] as number, "SIGKILL");
      const killed = await running;
      expect(killed.allPassed).toBe(false);
      expect(killed.incident?.kind).toBe("crashed");
      expect(killed.incident?.message).toContain("the Pyodide box exited (SIGKILL)");
      const next = await rt.run(taskRunRequest(task, task.canonical));
      expect(next.allPassed).toBe(true);
      expect(pids.length).toBe(2);
    } finally {
      await rt.dispose();
    }
  });

  it("boxes ended while bubblewrap is still setting them up leave no process behind", async () => {
    // The ids of running processes of boxes (a zombie, dead and waiting for the system to reap it, does not count).
    // By id: boxes of other runs on this machine may end meanwhile.
    const running = () =>
      execFileSync("ps", ["-eo", "pid=,stat=,args="], { encoding: "utf8" })
        .split("\n")
        .map((l) => l.trim().split(/\s+/))
        .filter(([, stat, ...args]) => args.join(" ").includes("node-box-entry.mjs") && !stat?.startsWith("Z"))
        .map(([pid]) => pid);
    const before = new Set(running());
    for (let i = 0; i < 20; i++) {
      const handle = nodeBoxHandle();
      await new Promise((r) => setTimeout(r, i % 10));
      handle.terminate();
    }
    await new Promise((r) => setTimeout(r, 1500));
    expect(running().filter((pid) => !before.has(pid))).toEqual([]);
  });

  it.runIf(process.getuid?.() === 0)("run by root, a box that must stay root (a folder others cannot read) says so once", async () => {
    const closed = mkdtempSync(join(tmpdir(), "recode-closed-"));
    chmodSync(closed, 0o700);
    const open = mkdtempSync(join(tmpdir(), "recode-open-"));
    chmodSync(open, 0o755);
    const warnings: string[] = [];
    const warn = (m: string) => warnings.push(m);
    try {
      const rts = [
        createNodePyodideRuntime({ sandbox: "bwrap", packageCacheDir: open, warn, snapshotDir: false }),
        createNodePyodideRuntime({ sandbox: "bwrap", packageCacheDir: closed, warn, snapshotDir: false }),
        createNodePyodideRuntime({ sandbox: "bwrap", packageCacheDir: closed, warn, snapshotDir: false }),
      ];
      expect(warnings).toEqual([expect.stringContaining(`Pyodide's box runs as root (${closed} cannot be read by other users)`)]);
      // It still runs the tasks (as root).
      const task = loadTaskDir(BUILTIN_TASKS, "pass-at-k");
      const res = await rts[1]?.run(taskRunRequest(task, task.canonical));
      expect(res?.allPassed).toBe(true);
      for (const rt of rts) await rt.dispose();
    } finally {
      rmSync(closed, { recursive: true, force: true });
      rmSync(open, { recursive: true, force: true });
    }
  });

  it("runs from a checkout under /tmp whose node_modules is a link to another (the box makes the link, keeps /tmp open)", () => {
    const root = fileURLToPath(new URL("../..", import.meta.url));
    const copy = mkdtempSync(join(tmpdir(), "recode-checkout-"));
    try {
      for (const f of ["bin", "src", "tasks", "package.json", "tsconfig.json"]) cpSync(join(root, f), join(copy, f), { recursive: true });
      symlinkSync(join(root, "node_modules"), join(copy, "node_modules"));
      const r = spawnSync(process.execPath, ["bin/recode.mjs", "test", "pass-at-k", "tasks/pass-at-k/canonical.py", "--json"], {
        cwd: copy,
        encoding: "utf8",
      });
      expect(r.stderr).not.toMatch(/box exited/);
      expect(JSON.parse(r.stdout.split("\n")[0] ?? "").solved).toBe(true);
      expect(r.status).toBe(0);
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }
  });
});
