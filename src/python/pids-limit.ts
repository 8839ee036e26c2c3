/**
 * A limit on the number of processes a box may run, through the kernel's
 * `pids` cgroup controller (RLIMIT_NPROC does not apply to root, and counts
 * the user's processes outside the box too).
 *
 * Where a `pids` controller is writable (cgroup v2 with `pids` enabled, or the
 * v1 hierarchy at /sys/fs/cgroup/pids, as root or with a delegated subtree),
 * each box gets its own group with `pids.max` set, and the box's first process
 * joins it before it starts anything (see {@link PidsLimit.wrap}). Elsewhere
 * {@link createPidsLimit} returns null and the number of processes is not
 * limited (docs/security.md says so).
 */
import { existsSync, mkdirSync, readFileSync, rmdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** One group with a process limit. */
export interface PidsLimit {
  /** The group's folder in the cgroup file system. */
  readonly dir: string;
  /** A command that joins the group, then runs `command args`, with the same process id. */
  wrap(command: string, args: string[]): { command: string; args: string[] };
  /** Remove the group (once every process in it has ended; errors are ignored). */
  remove(): void;
}

/** Where a writable `pids` controller is, or null (checked once). */
let root: string | null | undefined;

function pidsRoot(): string | null {
  if (root !== undefined) return root;
  root = null;
  const v2 = "/sys/fs/cgroup";
  try {
    if (existsSync(join(v2, "cgroup.controllers"))) {
      const controllers = readFileSync(join(v2, "cgroup.subtree_control"), "utf8");
      if (/\bpids\b/.test(controllers)) root = v2;
    } else if (existsSync("/sys/fs/cgroup/pids/cgroup.procs")) {
      root = "/sys/fs/cgroup/pids";
    }
  } catch {
    root = null;
  }
  return root;
}

let serial = 0;

/**
 * A new group limited to `max` processes (threads count), or null when no
 * `pids` controller can be written here.
 */
export function createPidsLimit(max: number): PidsLimit | null {
  const base = pidsRoot();
  if (!base) return null;
  const dir = join(base, `recode-${process.pid}-${++serial}`);
  try {
    mkdirSync(dir);
    writeFileSync(join(dir, "pids.max"), String(max));
  } catch {
    try {
      rmdirSync(dir);
    } catch {
      /* never made */
    }
    return null;
  }
  return {
    dir,
    wrap: (command, args) => ({
      command: "/bin/sh",
      args: ["-c", 'echo $$ > "$0/cgroup.procs" && exec "$@"', dir, command, ...args],
    }),
    remove: () => {
      try {
        rmdirSync(dir);
      } catch {
        /* processes still in it, or gone already */
      }
    },
  };
}
