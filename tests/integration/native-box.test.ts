/**
 * The native backend's box (bubblewrap): each guarantee attacked by a
 * candidate file. A local catcher server on the loopback address must receive
 * nothing; secrets in the host's environment must not reach Python; no
 * process may outlive the run; nothing outside the run folder is readable or
 * writable. Without the box (`sandbox: "none"`) the same attacks succeed,
 * which shows they are real.
 */
import { spawnSync } from "node:child_process";
import { chmodSync, cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BUILTIN_TASKS, loadTaskDir } from "../../src/cli/task-fs";
import { NativeRuntime } from "../../src/python/native-runtime";
import { bwrapCommand, findPython } from "../../src/python/native-sandbox";
import { taskRunRequest } from "../../src/python/runtime";
import { ATTACKS } from "../helpers/attacks";
import { type Catcher, startCatcher } from "../helpers/catcher";
import { probe } from "../helpers/probe";

const SECRET = "sk-test-secret-never-in-python";
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

const ATTEMPTS = {
  environment: "import os\ndef probe():\n    return sorted(k for k, v in os.environ.items() if 'sk-test' in v)\n",
  network: `import urllib.request\ndef probe():\n    try:\n        return urllib.request.urlopen('http://127.0.0.1:PORT/leak', timeout=2).read().decode()\n    except Exception as e:\n        return 'blocked ' + type(e).__name__\n`,
  files:
    "import os\ndef probe():\n    seen = [p for p in ('/work', '/root/.ssh', '/etc/shadow', '/home') if os.path.exists(p)]\n    if os.path.exists('/etc/passwd') and {l.split(':')[0] for l in open('/etc/passwd').read().split()} - {'root', 'nobody'}:\n        seen.append('/etc/passwd (host users)')\n    wrote = []\n    for p in ('/usr/recode-x', '/recode/lib/x', '/etc/recode-x'):\n        try:\n            open(p, 'w').write('x')\n            wrote.append(p)\n        except OSError:\n            pass\n    return [seen, wrote]\n",
  // What a process that is root on the host could do to the host's device nodes bubblewrap binds into the box:
  // set their times (a channel to the next run) or their mode (every program on the host then fails to use them).
  devices:
    "import os\ndef probe():\n    st = os.stat('/dev/null')\n    done = []\n    for what, act in (('times', lambda: os.utime('/dev/null', ns=(st.st_atime_ns, st.st_mtime_ns))), ('mode', lambda: os.chmod('/dev/null', st.st_mode & 0o7777)), ('owner', lambda: os.chown('/dev/null', st.st_uid, st.st_gid))):\n        try:\n            act()\n            done.append(what)\n        except OSError:\n            pass\n    return [os.getuid(), done]\n",
  processes:
    "import subprocess\ndef probe():\n    subprocess.Popen(['setsid', 'sleep', '61.4242'], start_new_session=True)\n    return 'started'\n",
  // The kernel's keyrings are not namespaced: the session keyring of whoever started recode (Kerberos tickets,
  // keys stored with keyctl) and a user's keyring a later run would find. Asked here and by a child process.
  // (ctypes is refused to code under test; a python3 it starts has it.)
  keyrings: `import subprocess, sys
CHILD = """
import ctypes, platform
libc = ctypes.CDLL(None, use_errno=True)
ADD_KEY, KEYCTL = {"x86_64": (248, 250), "aarch64": (217, 219)}[platform.machine()]
out = []
for r in (libc.syscall(KEYCTL, 0, ctypes.c_int(-3), 0), libc.syscall(KEYCTL, 0, ctypes.c_int(-4), 0),
          libc.syscall(ADD_KEY, b"user", b"recode-probe", b"v", 1, ctypes.c_int(-1))):
    out.append("errno %d" % ctypes.get_errno() if r < 0 else "key")
print(out)
"""
def probe():
    child = subprocess.run([sys.executable, "-c", CHILD], capture_output=True, text=True)
    return (child.stdout + child.stderr).strip()
`,
};

function sleepersLeft(): number {
  const r = spawnSync("ps", ["-eo", "args"], { encoding: "utf8" });
  return r.stdout.split("\n").filter((l) => l.includes("sleep 61.4242")).length;
}

describe("the Python installation the box mounts", () => {
  it("leaves out the caller's PYTHONPATH and any folder outside Python's prefixes", () => {
    const checkout = fileURLToPath(new URL("../..", import.meta.url)).replace(/\/$/, "");
    process.env.PYTHONPATH = checkout;
    try {
      const py = findPython("python3");
      expect(py.roots.some((r) => r === checkout || r.startsWith(`${checkout}/`))).toBe(false);
      expect(py.roots.length).toBeGreaterThan(0);
    } finally {
      delete process.env.PYTHONPATH;
    }
  });
});

describe("a virtual environment given as the Python", () => {
  it("runs as that environment, with the task's packages from it, not as the Python it was made from", async () => {
    const dir = mkdtempSync(join(tmpdir(), "recode-venv-"));
    try {
      const made = spawnSync("python3", ["-m", "venv", "--without-pip", join(dir, "env")], { encoding: "utf8" });
      expect(made.status, made.stderr).toBe(0);
      const version = spawnSync(join(dir, "env", "bin", "python"), ["-c", "import sys; print('%d.%d' % sys.version_info[:2])"], {
        encoding: "utf8",
      }).stdout.trim();
      const site = join(dir, "env", "lib", `python${version}`, "site-packages");
      mkdirSync(site, { recursive: true });
      writeFileSync(join(site, "recode_only_in_env.py"), "VALUE = 'from the environment'\n");
      const rt = new NativeRuntime({ python: join(dir, "env", "bin", "python") });
      try {
        const code =
          "import sys\nimport recode_only_in_env\ndef probe():\n    return [recode_only_in_env.VALUE, sys.prefix != sys.base_prefix]\n";
        // A package of the environment's that the task lists (as the page's Python has the task's packages alone).
        const r = await rt.run({ ...probe(code), packages: ["recode_only_in_env"] });
        expect(r.collectionError).toBeNull();
        expect(r.tests[0]?.stdout).toContain("PROBE ['from the environment', True]");
        // One it does not list is no module, as in the page.
        const unlisted = await rt.run(probe(code));
        expect(unlisted.collectionError?.message).toMatch(
          /^ModuleNotFoundError: No module named 'recode_only_in_env' \(not among the task's packages/,
        );
      } finally {
        await rt.dispose();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("tasks inside a folder the box mounts (a Python environment), given by path or through a link", () => {
  it("the candidate reads no task's canonical solution or recorded values, beside its own task or not, and an honest one is solved", () => {
    const dir = mkdtempSync(join(tmpdir(), "recode-venv-tasks-"));
    const recode = fileURLToPath(new URL("../../bin/recode.mjs", import.meta.url));
    try {
      const env = join(dir, "env");
      const made = spawnSync("python3", ["-m", "venv", "--without-pip", env], { encoding: "utf8" });
      expect(made.status, made.stderr).toBe(0);
      // Tasks in a folder of the environment's (a task pack installed there), one given through a link elsewhere;
      // and tasks right in the environment's prefix.
      const shared = join(env, "share", "tasks");
      const links = join(dir, "links");
      mkdirSync(links);
      for (const root of [shared, env]) {
        for (const id of ["pass-at-k", "min-p-sampling"]) cpSync(join(BUILTIN_TASKS, id), join(root, id), { recursive: true });
      }
      symlinkSync(join(shared, "pass-at-k"), join(links, "pass-at-k"));
      const canonical = readFileSync(join(BUILTIN_TASKS, "pass-at-k", "canonical.py"), "utf8");
      for (const [task, beside] of [
        [join(links, "pass-at-k"), shared],
        [join(env, "pass-at-k"), env],
      ] as const) {
        // An honest file that, at its import, reads what it can of the tasks: any read is a leak.
        const reads = ["min-p-sampling/canonical.py", "min-p-sampling/expected.json", "pass-at-k/expected.json"]
          .map((f) => JSON.stringify(join(beside, f)))
          .join(", ");
        const file = join(dir, "peek.py");
        writeFileSync(
          file,
          `${canonical}\nfor _p in [${reads}]:\n    try:\n        open(_p).read()\n    except OSError:\n        continue\n    raise RuntimeError("LEAK " + _p)\n`,
        );
        const r = spawnSync(process.execPath, [recode, "test", task, file, "--backend", "native", "--python", join(env, "bin", "python")], {
          encoding: "utf8",
          timeout: 120_000,
        });
        expect(r.stdout + r.stderr, task).not.toContain("LEAK");
        expect(r.status, `${task}\n${r.stdout}${r.stderr}`).toBe(0);
      }
      // validate, given the linked folder: the task's own code (here its canonical solution) reads nothing either.
      const leaky = join(shared, "pass-at-k", "canonical.py");
      writeFileSync(
        leaky,
        `${canonical}\ntry:\n    open(${JSON.stringify(join(shared, "min-p-sampling", "expected.json"))}).read()\n    raise RuntimeError("LEAK")\nexcept OSError:\n    pass\n`,
      );
      const val = spawnSync(
        process.execPath,
        [recode, "tasks", "validate", join(links, "pass-at-k"), "--native-only", "--no-mutation", "--python", join(env, "bin", "python")],
        { encoding: "utf8", timeout: 180_000 },
      );
      expect(val.stdout + val.stderr).not.toContain("LEAK");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("native backend in bubblewrap", () => {
  const rt = new NativeRuntime({ sandbox: "bwrap" });
  beforeAll(() => rt.ready());

  it("reports the box in its version", () => {
    expect(rt.version).toContain("bubblewrap");
  });

  it("gives Python no secret from the environment", async () => {
    const r = await rt.run(probe(ATTEMPTS.environment));
    expect(r.tests[0]?.stdout).toContain("PROBE []");
  });

  it("reaches no network address, the loopback included", async () => {
    const before = hits.length;
    const r = await rt.run(probe(ATTEMPTS.network.replace("PORT", String(port))));
    expect(r.tests[0]?.stdout).toContain("PROBE blocked");
    expect(hits.length).toBe(before);
  });

  it("sees no file outside the system, Python and its run folder, and writes none", async () => {
    const r = await rt.run(probe(ATTEMPTS.files));
    expect(r.tests[0]?.stdout).toContain("PROBE [[], []]");
    expect(spawnSync("ls", ["/usr/recode-x", "/etc/recode-x"]).status).not.toBe(0);
  });

  it("cannot change the host's device nodes, even when recode runs as root", async () => {
    const r = await rt.run(probe(ATTEMPTS.devices));
    // Each change sets the node back as it was, so that the attack harms nothing where it succeeds.
    expect(r.tests[0]?.stdout).toMatch(/PROBE \[\d+, \[\]\]/);
    if (process.getuid?.() === 0) expect(r.tests[0]?.stdout).not.toContain("PROBE [0,");
  });

  it("leaves no process behind", async () => {
    const r = await rt.run(probe(ATTEMPTS.processes));
    expect(r.tests[0]?.stdout).toContain("PROBE started");
    await new Promise((res) => setTimeout(res, 300));
    expect(sleepersLeft()).toBe(0);
  });

  it("ends a fork bomb at the process limit, with the test's error saying so", async () => {
    const bomb = `import os, time
def probe():
    pids = []
    try:
        for _ in range(500):
            pid = os.fork()
            if pid == 0:
                time.sleep(5)
                os._exit(0)
            pids.append(pid)
    except OSError as e:
        return f"stopped after {len(pids)} forks: {e.strerror}"
    return f"forked {len(pids)}"
`;
    const r = await rt.run(probe(bomb));
    expect(r.tests[0]?.stdout).toMatch(/PROBE stopped after \d+ forks: Resource temporarily unavailable/);
    const forks = Number(/after (\d+) forks/.exec(r.tests[0]?.stdout ?? "")?.[1]);
    expect(forks).toBeLessThan(64);
  });

  it("holds all its processes together to the box's memory: children that each stay under the per-process cap cannot add up past it", async () => {
    // Three children of 300 MiB each, every page written, under a box limit of 512 MiB (each process alone may have 8 GiB).
    const hog = `import os
def probe():
    pids = []
    for _ in range(3):
        pid = os.fork()
        if pid == 0:
            b = bytearray(300 << 20)
            for i in range(0, len(b), 4096):
                b[i] = 1
            os._exit(0)
        pids.append(pid)
    codes = [os.waitpid(p, 0)[1] for p in pids]
    return "killed" if any(os.WIFSIGNALED(c) for c in codes) else "all held 300 MiB"
`;
    const small = new NativeRuntime({ sandbox: "bwrap", limits: { boxMemoryBytes: 512 * 1024 ** 2 } });
    await small.ready();
    const r = await small.run(probe(hog));
    await small.dispose();
    expect(r.tests[0]?.stdout).toContain("PROBE killed");
    const roomy = await rt.run(probe(hog));
    expect(roomy.tests[0]?.stdout).toContain("PROBE all held 300 MiB");
  });

  /** A probe that writes 1000 MiB to `path`: what the file system says when it is full. */
  const fill = (path: string) => `def probe():
    try:
        with open("${path}", "wb") as f:
            for _ in range(1000):
                f.write(b"x" * (1 << 20))
    except OSError as e:
        return e.strerror
    return "wrote 1000 MiB"
`;

  it("fills only its own run folder: a full disk is an error in the test, and the next run works", async () => {
    const r = await rt.run(probe(fill("big.bin")));
    expect(r.tests[0]?.stdout).toContain("PROBE No space left on device");
    const next = await rt.run(probe("def probe():\n    return 'fine'\n"));
    expect(next.tests[0]?.stdout).toContain("PROBE fine");
  });

  it("fills only a /tmp of its own size: memory of the host is not the box's to take", async () => {
    const r = await rt.run(probe(fill("/tmp/big.bin")));
    expect(r.tests[0]?.stdout).toContain("PROBE No space left on device");
  });

  it("a line on the event channel that never ends is cut at the stream's limit: the run is not trusted, and ends", async () => {
    // Written on the harness's descriptor without a newline: the host held all of it (about 1 GB in 30 s).
    const flood =
      'import os\ndef probe():\n    os.write(3, b\'{"type":"check","key":"\')\n    block = b\'a\' * (1 << 20)\n    for _ in range(200):\n        os.write(3, block)\n    return \'wrote 200 MB\'\n';
    const r = await rt.run(probe(flood));
    expect(r.incident?.kind, JSON.stringify(r.incident)).toBe("tampered");
    expect(r.incident?.message).toMatch(/event stream|not a harness event|the harness did not write/);
    expect(r.allPassed).toBe(false);
  });

  it("reaches no keyring of the kernel's from a process it starts (a seccomp filter)", async () => {
    const r = await rt.run(probe(ATTEMPTS.keyrings));
    expect(r.tests[0]?.stdout).toContain("PROBE ['errno 1', 'errno 1', 'errno 1']");
  });

  it("cannot read the canonical solution", async () => {
    const r = await rt.run(taskRunRequest(loadTaskDir(BUILTIN_TASKS, "min-p-sampling"), ATTACKS["canonical solution"] as string));
    expect(r.collectionError).toBeNull();
    expect(r.counts.passed).toBe(0);
  });
});

describe("native backend without a box (sandbox none): the same attacks succeed", () => {
  const warnings: string[] = [];
  const rt = new NativeRuntime({ sandbox: "none", warn: (m) => warnings.push(m) });
  beforeAll(() => rt.ready());

  it("warns once, and still keeps secrets out of the environment", async () => {
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain("without a sandbox");
    const r = await rt.run(probe(ATTEMPTS.environment));
    expect(r.tests[0]?.stdout).toContain("PROBE []");
  });

  it("reaches the kernel's keyrings", async () => {
    const r = await rt.run(probe(ATTEMPTS.keyrings));
    expect(r.tests[0]?.stdout).toContain("PROBE ['key', 'key', 'key']");
  });

  it("reaches the catcher server and the canonical solution", async () => {
    const before = hits.length;
    const r = await rt.run(probe(ATTEMPTS.network.replace("PORT", String(port))));
    expect(r.tests[0]?.stdout).toContain("PROBE caught");
    expect(hits.length).toBe(before + 1);
    const c = await rt.run(taskRunRequest(loadTaskDir(BUILTIN_TASKS, "min-p-sampling"), ATTACKS["canonical solution"] as string));
    expect(c.collectionError?.message).toContain("reached [the canonical solution]");
  });
});

describe("descriptors of the process that started recode", () => {
  it("do not reach the box: a folder left open by the shell gives code under test nothing (no canonical solution, no verdict)", () => {
    // Implements nothing: borrows the canonical solution through any descriptor of a folder that holds it.
    const borrow = `import os
for _fd in range(4, 1024):
    try:
        if "canonical.py" in os.listdir(_fd):
            _f = os.open("canonical.py", os.O_RDONLY, dir_fd=_fd)
            exec(compile(os.read(_f, 1 << 20).decode(), "canonical.py", "exec"), globals())
            break
    except (OSError, TypeError, ValueError):
        pass
`;
    const dir = fileURLToPath(new URL("../../tasks/pass-at-k", import.meta.url));
    const file = `${process.env.TMPDIR ?? "/tmp"}/recode-fd-borrow-${process.pid}.py`;
    spawnSync("sh", ["-c", 'cat > "$1"', "sh", file], { input: borrow });
    // The shell opens the folder without close-on-exec, as a user's shell or a job runner may.
    const r = spawnSync("bash", ["-c", 'exec 100<"$1"; exec node bin/recode.mjs test pass-at-k "$2" --backend native', "bash", dir, file], {
      encoding: "utf8",
      timeout: 120_000,
    });
    spawnSync("rm", ["-f", file]);
    expect(`${r.stdout}${r.stderr}`).not.toContain("All tests pass");
    expect(r.status).not.toBe(0);
  });
});

describe("the playground installed under /usr (a global install), which every box binds read-only for the system", () => {
  // Root alone can write under /usr: as on a server where \`npm install -g\` was run as root.
  const asRoot = process.getuid?.() === 0;

  it.runIf(asRoot)("a folder under /usr is readable in the box unless hidden, and hidden it is an empty folder", () => {
    const secret = mkdtempSync("/usr/local/lib/recode-hidden-");
    // (Open to all, as an installed package is: the box runs as nobody.)
    chmodSync(secret, 0o755);
    const run = mkdtempSync(join(tmpdir(), "recode-hide-run-"));
    try {
      writeFileSync(join(secret, "canonical.py"), "SOLUTION = 42\n");
      mkdirSync(join(run, "work"));
      const read = (hide: string[]) => {
        const cmd = bwrapCommand(
          findPython("python3"),
          run,
          fileURLToPath(new URL("../../src/python", import.meta.url)),
          [
            "-c",
            `import os\ntry:\n    print(open(${JSON.stringify(join(secret, "canonical.py"))}).read().strip())\nexcept OSError as e:\n    print(type(e).__name__, os.listdir(${JSON.stringify(secret)}))`,
          ],
          {},
          hide,
        );
        return spawnSync(cmd.command, cmd.args, { encoding: "utf8", timeout: 30_000 }).stdout.trim();
      };
      // The attack, where nothing is hidden: the box reads what lies under /usr.
      expect(read([])).toBe("SOLUTION = 42");
      expect(read([secret])).toBe("FileNotFoundError []");
    } finally {
      rmSync(secret, { recursive: true, force: true });
      rmSync(run, { recursive: true, force: true });
    }
  });

  it.runIf(asRoot)(
    "recode test run from there: the candidate cannot read the tasks' canonical solutions, and an honest one is solved",
    () => {
      const root = mkdtempSync("/usr/local/lib/recode-global-");
      chmodSync(root, 0o755);
      const checkout = fileURLToPath(new URL("../..", import.meta.url));
      const file = join(tmpdir(), `recode-usr-borrow-${process.pid}.py`);
      try {
        for (const part of ["bin", "src", "tasks", "package.json"]) cpSync(join(checkout, part), join(root, part), { recursive: true });
        symlinkSync(join(checkout, "node_modules"), join(root, "node_modules"));
        // Implements nothing: runs the canonical solution from the installed tasks.
        const canonical = join(root, "tasks", "pass-at-k", "canonical.py");
        writeFileSync(file, `exec(compile(open(${JSON.stringify(canonical)}).read(), "canonical.py", "exec"))\n`);
        const r = spawnSync(
          process.execPath,
          [join(root, "bin", "recode.mjs"), "test", "pass-at-k", file, "--backend", "native", "--json"],
          {
            encoding: "utf8",
            timeout: 120_000,
          },
        );
        const out = JSON.parse(r.stdout) as { solved: boolean; collectionError?: { message: string } | null };
        expect(out.solved).toBe(false);
        expect(JSON.stringify(out)).toContain("No such file or directory");
        expect(r.status).toBe(1);
        // The Pyodide box works from there, its folders hidden as well: an honest candidate is solved.
        const honest = spawnSync(
          process.execPath,
          [join(root, "bin", "recode.mjs"), "test", "pass-at-k", join(checkout, "tasks", "pass-at-k", "canonical.py"), "--json"],
          { encoding: "utf8", timeout: 180_000 },
        );
        expect((JSON.parse(honest.stdout) as { solved: boolean }).solved).toBe(true);
      } finally {
        rmSync(root, { recursive: true, force: true });
        rmSync(file, { force: true });
      }
    },
  );

  it.runIf(asRoot)(
    "a task folder of the user's under /usr, given by path or with --dir: the candidate cannot read its canonical solution",
    () => {
      const root = mkdtempSync("/usr/local/share/recode-tasks-");
      chmodSync(root, 0o755);
      const file = join(tmpdir(), `recode-usr-task-borrow-${process.pid}.py`);
      try {
        cpSync(join(BUILTIN_TASKS, "pass-at-k"), join(root, "pass-at-k"), { recursive: true });
        // Implements nothing: runs the canonical solution from the task's own folder.
        const canonical = join(root, "pass-at-k", "canonical.py");
        writeFileSync(file, `exec(compile(open(${JSON.stringify(canonical)}).read(), "canonical.py", "exec"))\n`);
        const recode = fileURLToPath(new URL("../../bin/recode.mjs", import.meta.url));
        // And a task folder right under /usr, given by its path (its id is its folder's name).
        const top = `/usr/recode-top-${process.pid}`;
        cpSync(join(BUILTIN_TASKS, "pass-at-k"), top, { recursive: true });
        const meta = join(top, "task.json");
        writeFileSync(meta, readFileSync(meta, "utf8").replace('"id": "pass-at-k"', `"id": "recode-top-${process.pid}"`));
        writeFileSync(
          join(tmpdir(), `recode-usr-top-borrow-${process.pid}.py`),
          `exec(compile(open(${JSON.stringify(join(top, "canonical.py"))}).read(), "canonical.py", "exec"))\n`,
        );
        for (const how of [
          ["test", join(root, "pass-at-k"), file],
          ["test", "pass-at-k", file, "--dir", root],
          ["test", top, join(tmpdir(), `recode-usr-top-borrow-${process.pid}.py`)],
        ]) {
          const r = spawnSync(process.execPath, [recode, ...how, "--backend", "native", "--json"], { encoding: "utf8", timeout: 120_000 });
          const out = JSON.parse(r.stdout) as { solved: boolean };
          expect(out.solved, how.join(" ")).toBe(false);
          expect(JSON.stringify(out)).toContain("No such file or directory");
          expect(r.status).toBe(1);
        }
      } finally {
        rmSync(root, { recursive: true, force: true });
        rmSync(`/usr/recode-top-${process.pid}`, { recursive: true, force: true });
        rmSync(file, { force: true });
        rmSync(join(tmpdir(), `recode-usr-top-borrow-${process.pid}.py`), { force: true });
      }
    },
  );
});
