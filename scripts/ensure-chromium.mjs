// Makes sure Debian's chromium is installed for the Playwright e2e tests
// (Playwright's own browser download does not work offline). Installs it with
// apt-get when it is missing and we are root; otherwise prints how to install
// it and exits with status 1.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";

const CHROMIUM = "/usr/bin/chromium";

if (existsSync(CHROMIUM)) {
  process.exit(0);
}
const isRoot = typeof process.getuid === "function" && process.getuid() === 0;
if (!isRoot) {
  console.error(`${CHROMIUM} is missing. Install Debian's chromium as root:\n  apt-get update && apt-get install -y chromium`);
  process.exit(1);
}
console.log(`${CHROMIUM} is missing; installing Debian's chromium with apt-get ...`);
for (const args of [["update"], ["install", "-y", "chromium"]]) {
  const res = spawnSync("apt-get", args, { stdio: "inherit", env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" } });
  if (res.status !== 0) {
    console.error(
      `apt-get ${args.join(" ")} failed (status ${res.status ?? res.signal}). Install chromium by hand:\n  apt-get update && apt-get install -y chromium`,
    );
    process.exit(1);
  }
}
if (!existsSync(CHROMIUM)) {
  console.error(`apt-get finished but ${CHROMIUM} is still missing.`);
  process.exit(1);
}
console.log(`installed ${CHROMIUM}`);
