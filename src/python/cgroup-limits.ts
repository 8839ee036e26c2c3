/**
 * Limits on a whole box through the kernel's cgroups: the number of processes
 * (`pids`; RLIMIT_NPROC does not apply to root, and counts the user's
 * processes outside the box too) and the memory of all its processes together
 * (`memory`; RLIMIT_AS caps each process alone, so a box that forks could
 * still take the host's memory).
 *
 * Where a controller is writable (cgroup v2 with it enabled, or the v1
 * hierarchy at /sys/fs/cgroup/<controller>, as root or with a delegated
 * subtree), each box gets its own group with the limit set, and the box's
 * first process joins every group before it starts anything (see
 * {@link BoxLimits.wrap}). Where none is, {@link createBoxLimits} returns null
 * and only the per-process limits apply (docs/security.md says so).
 */
import { existsSync, mkdirSync, readFileSync, rmdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** What to limit; absent fields are not limited. */
export interface BoxLimitValues {
  /** Processes and threads at once. */
  processes?: number;
  /** Memory of every process of the box together, in bytes (swap included where the kernel counts it). */
  memoryBytes?: number;
}

/** The groups of one box. */
export interface BoxLimits {
  /** The groups' folders in the cgroup file system. */
  readonly dirs: readonly string[];
  /** Which limits are in force here. */
  readonly limited: { processes: boolean; memory: boolean };
  /** A command that joins every group, then runs `command args`, with the same process id. */
  wrap(command: string, args: string[]): { command: string; args: string[] };
  /** Remove the groups (once every process in them has ended; errors are ignored). */
  remove(): void;
}

type Controller = "pids" | "memory";

/** Where a writable controller's hierarchy is (v2: the unified root; v1: its own), or null (checked once each). */
const roots = new Map<Controller, string | null>();

function rootOf(c: Controller): string | null {
  if (roots.has(c)) return roots.get(c) ?? null;
  let root: string | null = null;
  const v2 = "/sys/fs/cgroup";
  try {
    if (existsSync(join(v2, "cgroup.controllers"))) {
      if (new RegExp(`\\b${c}\\b`).test(readFileSync(join(v2, "cgroup.subtree_control"), "utf8"))) root = v2;
    } else if (existsSync(join(v2, c, "cgroup.procs"))) {
      root = join(v2, c);
    }
  } catch {
    root = null;
  }
  roots.set(c, root);
  return root;
}

/** The files that set a limit, by hierarchy (the first must be written; the others where they exist). */
function limitFiles(c: Controller, v2: boolean): string[] {
  if (c === "pids") return ["pids.max"];
  return v2 ? ["memory.max", "memory.swap.max"] : ["memory.limit_in_bytes", "memory.memsw.limit_in_bytes"];
}

let serial = 0;

/** Make one group under `root` and write `value` to its limit files; the group's folder, or null. */
function makeGroup(c: Controller, root: string, name: string, value: number): string | null {
  const dir = join(root, name);
  const v2 = root === "/sys/fs/cgroup";
  try {
    if (!existsSync(dir)) mkdirSync(dir);
    const [first, ...rest] = limitFiles(c, v2);
    // v2: memory.swap.max is swap beyond memory.max (none); v1: memsw is memory plus swap (the same total).
    writeFileSync(join(dir, first as string), String(value));
    for (const f of rest) {
      if (existsSync(join(dir, f))) writeFileSync(join(dir, f), v2 && f === "memory.swap.max" ? "0" : String(value));
    }
    return dir;
  } catch {
    try {
      rmdirSync(dir);
    } catch {
      /* never made, or shared with another controller (v2) */
    }
    return null;
  }
}

/**
 * Groups for one box with these limits, or null when no controller for any of
 * them can be written here.
 */
export function createBoxLimits(values: BoxLimitValues): BoxLimits | null {
  const name = `recode-${process.pid}-${++serial}`;
  const dirs: string[] = [];
  const limited = { processes: false, memory: false };
  const want: [Controller, number | undefined, keyof typeof limited][] = [
    ["pids", values.processes, "processes"],
    ["memory", values.memoryBytes, "memory"],
  ];
  for (const [c, value, key] of want) {
    const root = value === undefined ? null : rootOf(c);
    if (!root || value === undefined) continue;
    const dir = makeGroup(c, root, name, value);
    if (dir) {
      limited[key] = true;
      if (!dirs.includes(dir)) dirs.push(dir);
    }
  }
  if (dirs.length === 0) return null;
  // sh -c SCRIPT dir0 dir1 ... command args: $0 is the first group, $1 the second (at most two).
  const joins = dirs.map((_, i) => `echo $$ > "$${i}/cgroup.procs"`).join(" && ");
  const shift = dirs.length > 1 ? ` && shift ${dirs.length - 1}` : "";
  return {
    dirs,
    limited,
    wrap: (command, args) => ({
      command: "/bin/sh",
      args: ["-c", `${joins}${shift} && exec "$@"`, ...dirs, command, ...args],
    }),
    remove: () => {
      for (const dir of dirs) {
        try {
          rmdirSync(dir);
        } catch {
          /* processes still in it, or gone already */
        }
      }
    },
  };
}
