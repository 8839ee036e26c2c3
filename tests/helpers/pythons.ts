import { existsSync, readdirSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";

const PYENV = join(homedir(), ".pyenv", "versions");

/**
 * The Pythons to run a CPython-oracle script with: python3 on PATH, and each pyenv Python of 3.12 or later
 * installed here (where the features those scripts cover differ: the buffer protocol's `__buffer__`,
 * `LOAD_SUPER_ATTR`). Commands or absolute paths.
 */
export const PYTHONS_FOUND: readonly string[] = [
  "python3",
  ...(existsSync(PYENV) ? readdirSync(PYENV) : [])
    .filter((v) => /^3\.(1[2-9]|[2-9]\d)\.\d+$/.test(v))
    .map((v) => join(PYENV, v, "bin", "python3"))
    .filter((p) => existsSync(p)),
];
