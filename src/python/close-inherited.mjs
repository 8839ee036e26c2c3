// Loaded first in the box's Node (node-box.ts, `--import`): descriptors it inherited from whatever started
// recode are closed before anything else runs. One of them could lead out of the box: a shell's open folder
// (`exec 200</`) is the host's root, whatever the box mounts. Node opens each of its own descriptors
// close-on-exec, so every descriptor above the channel (3) that is not close-on-exec came from outside.
import { closeSync, readdirSync, readFileSync } from "node:fs";

const CLOSE_ON_EXEC = 0o2000000;

for (const name of readdirSync("/proc/self/fd")) {
  const fd = Number(name);
  if (!Number.isInteger(fd) || fd <= 3) continue;
  let flags = Number.NaN;
  try {
    flags = Number.parseInt(/flags:\s*([0-7]+)/.exec(readFileSync(`/proc/self/fdinfo/${fd}`, "utf8"))?.[1] ?? "", 8);
  } catch {
    continue; // gone already (the listing's own descriptor)
  }
  if (Number.isNaN(flags) || (flags & CLOSE_ON_EXEC) !== 0) continue;
  try {
    closeSync(fd);
  } catch {
    // closed meanwhile
  }
}
