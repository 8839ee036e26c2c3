#!/usr/bin/env node
// `npm run build [-- --student] [vite build options]`: builds the page into dist/.
// --student: a student build, without the tasks' canonical solutions (L4 is then
// unavailable; docs/teaching.md). Other options go to `vite build` as they are.
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";

const args = process.argv.slice(2);
const student = args.includes("--student");
const rest = args.filter((a) => a !== "--student");
if (student && rest.includes("--mode")) {
  console.error("build: --student sets the mode itself (student); leave out --mode");
  process.exit(2);
}
const vite = fileURLToPath(new URL("../node_modules/vite/bin/vite.js", import.meta.url));
const r = spawnSync(process.execPath, [vite, "build", ...(student ? ["--mode", "student"] : []), ...rest], { stdio: "inherit" });
if (r.error) {
  console.error(`build: could not start vite: ${r.error.message}`);
  process.exit(1);
}
process.exit(r.status ?? 1);
