// Makes sure the Debian packages the tests need are installed: chromium for the
// Playwright e2e tests (Playwright's own browser download does not work
// offline) and bubblewrap, the sandbox of the native python3 backend. Installs
// the missing ones with apt-get when we are root; otherwise prints how to
// install them and exits with status 1.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";

/** Debian package -> a file it installs. */
const NEEDED = { chromium: "/usr/bin/chromium", bubblewrap: "/usr/bin/bwrap", "util-linux": "/usr/bin/setpriv" };

const missing = Object.entries(NEEDED)
  .filter(([, file]) => !existsSync(file))
  .map(([pkg]) => pkg);
if (missing.length === 0) process.exit(0);
const how = `apt-get update && apt-get install -y ${missing.join(" ")}`;
const isRoot = typeof process.getuid === "function" && process.getuid() === 0;
if (!isRoot) {
  console.error(`missing: ${missing.join(", ")}. Install Debian's packages as root:\n  ${how}`);
  process.exit(1);
}
console.log(`missing: ${missing.join(", ")}; installing with apt-get ...`);
for (const args of [["update"], ["install", "-y", ...missing]]) {
  const res = spawnSync("apt-get", args, { stdio: "inherit", env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" } });
  if (res.status !== 0) {
    console.error(`apt-get ${args.join(" ")} failed (status ${res.status ?? res.signal}). Install them by hand:\n  ${how}`);
    process.exit(1);
  }
}
const still = Object.entries(NEEDED).filter(([, file]) => !existsSync(file));
if (still.length > 0) {
  console.error(`apt-get finished but ${still.map(([, f]) => f).join(", ")} is still missing.`);
  process.exit(1);
}
console.log(`installed ${missing.join(", ")}`);
