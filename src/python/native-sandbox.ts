/**
 * The box native python3 runs in (docs/security.md, "Native"). On Linux the
 * default is bubblewrap (`bwrap`, Debian package `bubblewrap`): the system and
 * the Python installation read-only, only the run folder writable, a fresh
 * /tmp, no network (a new network namespace with no interfaces), a new PID
 * namespace (every process the run starts dies with it), an empty environment,
 * no capabilities, and limits on address space and file size. When recode
 * runs as root, Python runs as the host's `nobody` ({@link boxAsNobody}): a
 * root process in a box still owns the host's device nodes bubblewrap binds
 * into its /dev, and could change their mode, owner and times.
 *
 * Policies: `auto` (bubblewrap where it works, else refuse to start), `bwrap`
 * (bubblewrap or refuse), `none` (no box: the code runs as the user, with the
 * user's files and network; warned about once per runtime).
 */
import { spawnSync } from "node:child_process";
import { existsSync, lstatSync, mkdtempSync, readdirSync, readlinkSync, realpathSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { SECCOMP_FD, seccompFilter } from "./seccomp-filter";

/** Sandbox policy of the native backend. */
export type NativeSandbox = "auto" | "bwrap" | "none";

/** The sandbox policies, for option parsing. */
export const NATIVE_SANDBOXES: readonly NativeSandbox[] = ["auto", "bwrap", "none"];

/** Limits inside the box. */
export interface SandboxLimits {
  /** Address space of each process, in bytes. Default 8 GiB. */
  memoryBytes?: number;
  /** Largest file a process may write, in bytes. Default 256 MiB. */
  fileBytes?: number;
  /** Space of the run folder (a tmpfs of this size; the task's files are copied in), in bytes. Default 64 MiB. */
  diskBytes?: number;
  /** Processes and threads the box may run at once (where a `pids` cgroup can be made, cgroup-limits.ts). Default 64. */
  processes?: number;
  /** Memory of all the box's processes together, in bytes (where a `memory` cgroup can be made, cgroup-limits.ts). Default 8 GiB. */
  boxMemoryBytes?: number;
}

/** The limits a box's cgroups get (cgroup-limits.ts), with the defaults of {@link SandboxLimits}. */
export function boxLimitValues(limits: SandboxLimits = {}): { processes: number; memoryBytes: number } {
  return { processes: limits.processes ?? 64, memoryBytes: limits.boxMemoryBytes ?? 8 * 1024 ** 3 };
}

/** The Python installation as the box needs to see it. */
export interface PythonInstall {
  /** `sys.executable`, resolved (not a shim; in a virtual environment, its own link, its folder resolved). */
  executable: string;
  /** Folders Python reads: prefixes and `sys.path` entries that exist. */
  roots: string[];
  version: string;
}

/** Paths inside the box. */
export const BOX = { lib: "/recode/lib", run: "/recode/run", src: "/recode/src" } as const;

/**
 * Ask `python` where it lives: its prefixes, and the `sys.path` folders inside
 * them. Asked in isolated mode (`-I`) without the `PYTHON*` variables, and
 * folders outside the prefixes left out, so that a `PYTHONPATH` of the
 * caller's (or an editable install's path entry) never mounts a host folder,
 * such as a checkout with the tasks, into the box.
 * Throws an Error that says what to install when it cannot run.
 */
export function findPython(python: string): PythonInstall {
  const code = [
    "import json, os, sys",
    "pre = {os.path.realpath(p) for p in (sys.prefix, sys.base_prefix, sys.exec_prefix) if p}",
    "inside = lambda p: any(p == q or p.startswith(q + os.sep) for q in pre)",
    "roots = sorted(p for p in {os.path.realpath(x) for x in [*pre, *sys.path] if x} if os.path.isdir(p) and inside(p))",
    // (In a virtual environment the executable is its own link, not the base Python it leads to: started as the
    // base, Python would not find the environment's pyvenv.cfg, and with it its packages.)
    "venv = sys.prefix != sys.base_prefix",
    "exe = os.path.join(os.path.realpath(os.path.dirname(sys.executable)), os.path.basename(sys.executable)) if venv else os.path.realpath(sys.executable)",
    "print(json.dumps([exe, sys.version.split()[0], roots]))",
  ].join("\n");
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("PYTHON")));
  const r = spawnSync(python, ["-I", "-c", code], { encoding: "utf8", env });
  if (r.error || r.status !== 0) {
    throw new Error(
      `cannot run ${python} as Python 3 (${r.error?.message ?? (r.stderr.trim() || `it exited with code ${r.status}`)}); check the path given with --python, or install Python 3`,
    );
  }
  let answer: unknown;
  try {
    answer = JSON.parse(r.stdout);
  } catch {
    answer = null;
  }
  if (!Array.isArray(answer) || typeof answer[0] !== "string" || typeof answer[1] !== "string" || !Array.isArray(answer[2])) {
    const said = r.stdout.trim().slice(0, 80);
    throw new Error(
      `cannot run ${python} as Python 3 (it ran, but did not answer as Python does${said ? `: ${JSON.stringify(said)}` : ", it printed nothing"}); check the path given with --python, or install Python 3`,
    );
  }
  const [executable, version, roots] = answer as [string, string, string[]];
  return { executable, version, roots };
}

let bwrapWorks: boolean | null = null;

/** Whether bubblewrap is installed and can make the namespaces it needs here (checked once). */
export function bwrapAvailable(): boolean {
  if (bwrapWorks === null) {
    const r = spawnSync("bwrap", ["--unshare-all", "--die-with-parent", "--ro-bind", "/", "/", "true"], { encoding: "utf8" });
    bwrapWorks = !r.error && r.status === 0;
  }
  return bwrapWorks;
}

/**
 * Which box a policy gives on this machine.
 * @throws Error naming what to install (or `--sandbox none`) when the policy needs bubblewrap and it does not work.
 */
export function resolveSandbox(policy: NativeSandbox): "bwrap" | "none" {
  if (policy === "none") return "none";
  if (process.platform === "linux" && bwrapAvailable()) return "bwrap";
  const why =
    process.platform === "linux"
      ? "bubblewrap (bwrap) is not installed or cannot create namespaces here; install it (apt-get install bubblewrap)"
      : `no sandbox is available on ${process.platform}`;
  throw new Error(
    `native backend: ${why}. Native runs execute untrusted code, so they do not start without a box; pass --sandbox none to run without one (the code then runs as you, with your files and network).`,
  );
}

/** The host user Python runs as in a box when recode runs as root: `nobody`, which owns nothing. */
export const NOBODY = { uid: 65534, gid: 65534 } as const;

const SETPRIV = ["/usr/bin/setpriv", "/bin/setpriv"].find((p) => existsSync(p)) ?? null;

/** Whether every user can read `path` (a folder: read and search it; mode o+r, and o+x for a folder). */
function openToAll(path: string): boolean {
  try {
    const st = statSync(path);
    const need = st.isDirectory() ? 0o005 : 0o004;
    return (st.mode & need) === need;
  } catch {
    return false;
  }
}

/**
 * Whether the box runs Python as {@link NOBODY}: when recode runs as root, `setpriv` (util-linux) is
 * installed, and the folders the box mounts (Python's, the harness's) are open to every user.
 * @returns `asNobody`, and `problem`: why a box of a root recode stays root ("" otherwise), for a warning.
 */
export function boxAsNobody(py: PythonInstall, libDir: string): { asNobody: boolean; problem: string } {
  return nobodyCan([...py.roots, libDir]);
}

/**
 * Whether a box that mounts `folders` can run as {@link NOBODY}: recode runs as root, `setpriv` is
 * installed, and every folder is open to all users. `problem` says why not, when recode runs as root.
 */
export function nobodyCan(folders: readonly string[]): { asNobody: boolean; problem: string } {
  if (process.getuid?.() !== 0) return { asNobody: false, problem: "" };
  if (!SETPRIV) return { asNobody: false, problem: "setpriv (util-linux) is not installed" };
  const closed = folders.filter((p) => !openToAll(p));
  if (closed.length > 0) return { asNobody: false, problem: `${closed.slice(0, 2).join(", ")} cannot be read by other users` };
  return { asNobody: true, problem: "" };
}

/**
 * Turn a box's system arguments ({@link bwrapSystemArgs}) into those of a box made by root that becomes
 * {@link NOBODY}: no user namespace (nobody must be the host's), and of root's capabilities only those
 * to give files to nobody and to become nobody. Returns the command line prefix that drops root and
 * every capability (put it before the box's program).
 */
export function dropToNobody(b: string[]): string[] {
  b.splice(b.indexOf("--unshare-all"), 1, "--unshare-ipc", "--unshare-pid", "--unshare-net", "--unshare-uts", "--unshare-cgroup-try");
  b.splice(b.indexOf("ALL") + 1, 0, ...["CHOWN", "SETUID", "SETGID", "SETPCAP"].flatMap((c) => ["--cap-add", `CAP_${c}`]));
  return [
    SETPRIV as string,
    `--reuid=${NOBODY.uid}`,
    `--regid=${NOBODY.gid}`,
    "--clear-groups",
    "--inh-caps=-all",
    "--bounding-set=-all",
    "--",
  ];
}

/**
 * Mount a host folder read-only at the same path, the folders above it made open to all in the box
 * (bubblewrap would copy their modes: /root is 0700 on the host). `made`: folders already made.
 */
export function bindOpen(b: string[], made: Set<string>, path: string): void {
  const above: string[] = [];
  for (let d = dirname(path); d !== "/" && !made.has(d); d = dirname(d)) above.unshift(d);
  for (const d of above) {
    made.add(d);
    b.push("--perms", "0755", "--dir", d);
  }
  b.push("--ro-bind", path, path);
}

/** Space of a box's /tmp (a tmpfs in memory), in bytes: 64 MiB. */
export const TMP_BYTES = 64 * 1024 ** 2;

/** Top-level folders that are symbolic links into /usr on merged-/usr systems (e.g. /lib -> usr/lib). */
function topLevelLinks(): [string, string][] {
  const out: [string, string][] = [];
  for (const name of ["bin", "sbin", "lib", "lib32", "lib64", "libx32"]) {
    const p = `/${name}`;
    try {
      if (lstatSync(p).isSymbolicLink()) out.push([readlinkSync(p), p]);
      else out.push(["", p]);
    } catch {
      /* absent */
    }
  }
  return out;
}

/**
 * bubblewrap's arguments for the system part of a box: new namespaces of every
 * kind (no network), no capabilities, /usr and the top-level system folders
 * read-only, a fresh /dev, /tmp and /dev/shm (and /proc when `proc`), and the box dies
 * with its parent. Callers add their own folders, then `--remount-ro /`.
 * @param proc mount a /proc of the box's own processes (Node needs one). Not
 *   for Python running code under test: `/proc/self/mem` reads and writes the
 *   interpreter's whole memory, the harness's key and checks included.
 */
export function bwrapSystemArgs(proc = true): string[] {
  const b = [
    "--unshare-all",
    "--die-with-parent",
    // The kernel's keyrings are not namespaced: key management calls are refused (seccomp-filter.ts).
    "--seccomp",
    String(SECCOMP_FD),
    "--cap-drop",
    "ALL",
    "--ro-bind",
    "/usr",
    "/usr",
    ...(proc ? ["--proc", "/proc"] : []),
    "--dev",
    "/dev",
    "--perms",
    "1777",
    // A size of its own: a tmpfs without one may take half of the host's memory.
    "--size",
    String(TMP_BYTES),
    "--tmpfs",
    "/tmp",
    // POSIX shared memory and named semaphores (multiprocessing's locks, queues and pools) live in /dev/shm.
    "--perms",
    "1777",
    "--size",
    String(TMP_BYTES),
    "--tmpfs",
    "/dev/shm",
  ];
  for (const [target, path] of topLevelLinks()) {
    if (target) b.push("--symlink", target, path);
    else b.push("--ro-bind", path, path);
  }
  // /etc made open to all (a box run as nobody must be able to look in it: Node reads its OpenSSL settings there).
  const made = new Set<string>();
  for (const f of ["/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/alternatives", "/etc/localtime"]) {
    if (existsSync(f)) bindOpen(b, made, f);
  }
  // The box's own users and groups, root and nobody (none of the host's): `getpass.getuser()`, `pwd.getpwuid()`
  // and `~` expansion without HOME name the user a run has, as on any system.
  if (!made.has("/etc")) {
    made.add("/etc");
    b.push("--perms", "0755", "--dir", "/etc");
  }
  const users = boxUserFiles();
  b.push("--ro-bind", users.passwd, "/etc/passwd", "--ro-bind", users.group, "/etc/group");
  return b;
}

let userFiles: { passwd: string; group: string } | null = null;

/** /etc/passwd and /etc/group of the box (root, and nobody with the box's HOME), written once per process. */
function boxUserFiles(): { passwd: string; group: string } {
  if (userFiles) return userFiles;
  const dir = mkdtempSync(join(tmpdir(), "recode-box-etc-"));
  process.once("exit", () => rmSync(dir, { recursive: true, force: true }));
  const passwd = join(dir, "passwd");
  const group = join(dir, "group");
  writeFileSync(passwd, `root:x:0:0:root:/root:/usr/sbin/nologin\nnobody:x:${NOBODY.uid}:${NOBODY.gid}:nobody:/tmp:/usr/sbin/nologin\n`, {
    mode: 0o444,
  });
  writeFileSync(group, `root:x:0:\nnogroup:x:${NOBODY.gid}:\n`, { mode: 0o444 });
  userFiles = { passwd, group };
  return userFiles;
}

/**
 * The playground's own folder, with its tasks (their canonical solutions and recorded values) and its built page,
 * when it lies under /usr (a global install: `npm install -g` as root puts it in /usr/local/lib/node_modules), which
 * every box binds read-only for the system's programs and libraries; else none. Hidden in the boxes code under test
 * runs in ({@link bwrapCommand}).
 */
export const PROJECT_UNDER_USR: readonly string[] = (() => {
  const root = resolve(fileURLToPath(new URL("../..", import.meta.url)));
  let real = root;
  try {
    real = realpathSync(root);
  } catch {
    /* as it is named */
  }
  return [...new Set([root, real])].filter((p) => p.startsWith("/usr/"));
})();

/**
 * The path `p` and its real path (a link's target), each once.
 */
function withRealPath(p: string): string[] {
  const abs = resolve(p);
  try {
    return [...new Set([abs, realpathSync(abs)])];
  } catch {
    return [abs];
  }
}

/** The system's own folders, which the box's programs need: never hidden, whatever a command names. */
const SYSTEM_FOLDERS: ReadonlySet<string> = new Set(
  ["/usr", "/usr/local"].flatMap((root) => [
    root,
    ...["bin", "sbin", "lib", "lib32", "lib64", "libx32", "libexec", "share", "include", "src", "games", "etc", "var", "man"].map(
      (name) => `${root}/${name}`,
    ),
  ]),
);

/**
 * Add to bubblewrap's arguments `b` (after the system's folders and `bound` are bound) an empty, read-only folder
 * over each of `paths` (and over its real path) that exists and lies inside /usr or inside one of `bound` (other
 * folders the box binds): the box does not see what they hold. A task folder (it holds a task.json) is always
 * covered, and so is the folder it is in (by its real path: the tasks beside it); another folder (the folder of
 * tasks a command reads) is left as it is when it is one of the system's folders (/usr/local, /usr/share, ...) or
 * holds one of `keep` (a folder the box needs, such as Python's own): every task folder in it is then covered one
 * by one, whether named or not.
 * @param paths host folders, such as the tasks a run comes from (their canonical solutions and recorded values).
 */
export function hideFromBox(b: string[], paths: readonly string[], bound: readonly string[] = [], keep: readonly string[] = []): void {
  const inside = (p: string, root: string) => p.startsWith(root.endsWith("/") ? root : `${root}/`);
  const needed = (p: string) => keep.some((k) => k === p || inside(k, p));
  const done = new Set<string>();
  const hidden: string[] = [];
  const cover = (path: string) => {
    b.push("--size", "4096", "--tmpfs", path, "--remount-ro", path);
    hidden.push(path);
  };
  const given = paths.flatMap(withRealPath);
  // The folder a task folder is in holds the tasks beside it, theirs to hide too: for a task given through a
  // link, that is the folder of its real path, which no path given names.
  const folders = given.filter((p) => existsSync(join(p, "task.json"))).map((p) => dirname(p));
  // (Outer folders first: one inside a hidden folder is hidden with it, and bubblewrap could not mount over it.)
  for (const path of [...given, ...folders].sort((a, b) => a.length - b.length)) {
    if (done.has(path) || !existsSync(path) || hidden.some((h) => inside(path, h))) continue;
    done.add(path);
    if (!inside(path, "/usr") && !bound.some((root) => root === path || inside(path, root))) continue;
    const task = existsSync(join(path, "task.json"));
    if (!task && (SYSTEM_FOLDERS.has(path) || needed(path))) {
      // Left for the system or for Python: the task folders in it are covered one by one, named or not.
      for (const entry of taskFolderEntries(path)) {
        const child = join(path, entry);
        if (done.has(child) || needed(child)) continue;
        done.add(child);
        cover(child);
      }
      continue;
    }
    cover(path);
  }
}

/** Names of the folders right in `folder` (not links) that hold a task.json; none when it cannot be read. */
function taskFolderEntries(folder: string): string[] {
  try {
    return readdirSync(folder, { withFileTypes: true })
      .filter((d) => d.isDirectory() && existsSync(join(folder, d.name, "task.json")))
      .map((d) => d.name);
  } catch {
    return [];
  }
}

/**
 * The command that runs `args` (a python3 command line, paths as inside the
 * box) in the box: bubblewrap's arguments, then a shell that sets the limits.
 * `hide`: folders the box does not see (each an empty read-only folder there, where the box would show it: under
 * /usr or a folder of Python's), such as the tasks the run comes from; the playground's own, when it is installed
 * under /usr ({@link PROJECT_UNDER_USR}), is always hidden.
 * @param runDir host folder with `work/` (the run's files) and `config.json`, copied into the box's own {@link BOX.run}.
 * @param libDir host folder of the harness, mounted read-only at {@link BOX.lib}.
 */
export function bwrapCommand(
  py: PythonInstall,
  runDir: string,
  libDir: string,
  args: string[],
  limits: SandboxLimits = {},
  hide: readonly string[] = [],
): { command: string; args: string[] } {
  const b = bwrapSystemArgs(false);
  const drop = boxAsNobody(py, libDir).asNobody ? dropToNobody(b) : null;
  const made = new Set<string>();
  for (const root of py.roots) {
    if (!root.startsWith("/usr/") && root !== "/usr" && existsSync(root)) bindOpen(b, made, root);
  }
  // Folders the box must not read where it would show them: the playground's own installed under /usr, the tasks.
  hideFromBox(b, [...PROJECT_UNDER_USR, ...hide], py.roots, [...py.roots, py.executable, libDir]);
  // The run folder is a tmpfs of its own size (a full disk is the box's, never the host's); the files are copied in.
  const disk = limits.diskBytes ?? 64 * 1024 ** 2;
  b.push("--perms", "0755", "--dir", dirname(BOX.lib));
  b.push("--ro-bind", libDir, BOX.lib, "--ro-bind", runDir, BOX.src, "--size", String(disk), "--tmpfs", BOX.run);
  b.push("--remount-ro", "/", "--chdir", BOX.run);
  b.push(
    "--clearenv",
    "--setenv",
    "PATH",
    "/usr/local/bin:/usr/bin:/bin",
    "--setenv",
    "HOME",
    "/tmp",
    "--setenv",
    "LANG",
    "C.UTF-8",
    "--setenv",
    "PYTHONHASHSEED",
    "0",
    "--setenv",
    "PYTHONDONTWRITEBYTECODE",
    "1",
  );
  const mem = Math.floor((limits.memoryBytes ?? 8 * 1024 ** 3) / 1024);
  // POSIX sh counts -f in 512-byte blocks and -v in KiB.
  const file = Math.floor((limits.fileBytes ?? 256 * 1024 ** 2) / 512);
  // As nobody: the run folder is given to nobody, then setpriv drops root and every capability before Python starts.
  const give = drop ? ` && chown -R ${NOBODY.uid}:${NOBODY.gid} ${BOX.run}` : "";
  b.push(
    "/bin/sh",
    "-c",
    `cp -R ${BOX.src}/. ${BOX.run}/${give} && cd work && ulimit -v ${mem} && ulimit -f ${file} && exec ${drop ? `${drop.join(" ")} ` : ""}"$0" "$@"`,
    py.executable,
    ...args,
  );
  return bwrapWithFilter(b);
}

let filterFile: string | null = null;

/** The seccomp filter (seccomp-filter.ts) in a file of this process's own folder, written at first use. */
function seccompFile(): string {
  if (filterFile) return filterFile;
  const dir = mkdtempSync(join(tmpdir(), "recode-seccomp-"));
  process.once("exit", () => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, "filter.bpf");
  writeFileSync(file, seccompFilter(), { mode: 0o400 });
  filterFile = file;
  return file;
}

/**
 * The command that runs bubblewrap with `args` (which {@link bwrapSystemArgs} began with `--seccomp`) and
 * its seccomp filter open on that descriptor: a shell opens the file and becomes bubblewrap, which reads
 * the filter, closes the descriptor and applies the filter to everything the box runs.
 */
export function bwrapWithFilter(args: string[]): { command: string; args: string[] } {
  return { command: "/bin/sh", args: ["-c", `exec bwrap "$@" ${SECCOMP_FD}<"$0"`, seccompFile(), ...args] };
}

/** What a native runtime (the unittest harness or pytest) knows once it is ready. */
export interface NativeSetup {
  install: PythonInstall;
  box: "bwrap" | "none";
  /** E.g. "3.11.7 (native python3, bubblewrap)". */
  version: string;
}

/**
 * Find `python` and the box `policy` gives on this machine; warn once (with
 * `warn`, default stderr) when runs will have no sandbox. `runner` names the
 * runtime in the version and the warning ("native", "pytest").
 * @throws Error saying what to install (or to pass) when Python cannot run or the policy cannot be met.
 */
export function setUpNative(
  python: string,
  policy: NativeSandbox,
  runner: string,
  libDir: string,
  warn?: (message: string) => void,
): NativeSetup {
  const install = findPython(python);
  const box = resolveSandbox(policy);
  const say = warn ?? ((m: string) => process.stderr.write(`${m}\n`));
  if (box === "none") {
    say(`warning: ${runner} runs without a sandbox (--sandbox none): the code under test runs as you, with your files and your network.`);
  }
  const { problem } = box === "bwrap" ? boxAsNobody(install, libDir) : { problem: "" };
  if (problem) {
    say(
      `warning: ${runner} runs as root in its box (${problem}): the code under test could change the host's device nodes, such as /dev/null.`,
    );
  }
  // "(native python3, bubblewrap)", "(pytest, python3, bubblewrap)".
  const name = runner === "native" ? "native" : `${runner},`;
  return { install, box, version: `${install.version} (${name} ${python}${box === "bwrap" ? ", bubblewrap" : ", no sandbox"})` };
}
