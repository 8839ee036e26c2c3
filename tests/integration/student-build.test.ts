/**
 * The student build (`npm run build -- --student`): no task's canonical
 * solution is in any file it writes, and the page it serves offers feedback up
 * to L3 only and says why. The attack: read every file of the build, as any
 * student can, and look for the canonical solutions' lines.
 */
import { type ChildProcess, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startPreview } from "../../src/cli/bench-page";
import { CHROMIUM_ARGS, CHROMIUM_PATH } from "../../src/cli/chromium";

const TASKS = "tasks";

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? filesUnder(p) : [p];
  });
}

/** The text of every file of a build that a browser reads as text (compressed copies are copies of these). */
function buildText(dir: string): string {
  return filesUnder(dir)
    .filter((f) => /\.(js|mjs|html|json|css|webmanifest)$/.test(f))
    .map((f) => readFileSync(f, "utf8"))
    .join("\n")
    .replaceAll("\\n", "\n");
}

/** Per task: the canonical solution's lines that no other file of any task holds (so finding one is a leak). */
function canonicalLines(): Map<string, string[]> {
  const others = filesUnder(TASKS)
    .filter((f) => !f.endsWith("canonical.py"))
    .map((f) => readFileSync(f, "utf8"))
    .join("\n");
  const out = new Map<string, string[]>();
  for (const task of readdirSync(TASKS)) {
    const lines = readFileSync(join(TASKS, task, "canonical.py"), "utf8")
      .split("\n")
      .map((l) => l.trim())
      .filter((l) => l.length > 25 && !l.startsWith("#") && !others.includes(l));
    out.set(task, lines);
  }
  return out;
}

function build(outDir: string, student: boolean): void {
  const r = spawnSync(process.execPath, ["scripts/build.mjs", ...(student ? ["--student"] : []), "--outDir", outDir, "--emptyOutDir"], {
    encoding: "utf8",
  });
  if (r.status !== 0) throw new Error(`build failed (${r.status}): ${r.stderr.slice(-2000)}`);
}

describe("the student build", () => {
  let root: string;
  let server: ChildProcess | null = null;
  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), "recode-student-"));
    build(join(root, "student"), true);
    build(join(root, "full"), false);
  }, 300_000);
  afterAll(() => {
    server?.kill();
    rmSync(root, { recursive: true, force: true });
  });

  it("holds no line of any canonical solution nor the offline demo's answers, which the full build holds", () => {
    const lines = canonicalLines();
    const student = buildText(join(root, "student"));
    const full = buildText(join(root, "full"));
    const leaked = [...lines].flatMap(([task, ls]) => ls.filter((l) => student.includes(l)).map((l) => `${task}: ${l}`));
    expect(leaked).toEqual([]);
    // The offline demo's scripts hold working solutions too: in the full build, not in the student's.
    const demo = "return 1.0 - comb(n - c, k) / comb(n, k)";
    expect(full.includes(demo)).toBe(true);
    expect(student.includes(demo)).toBe(false);
    // The same search finds them in a full build: it would see a leak.
    const missing = [...lines].filter(([, ls]) => ls.length === 0 || !ls.some((l) => full.includes(l))).map(([t]) => t);
    expect(missing).toEqual([]);
  });

  it("offers feedback up to L3 and says that L4 is not part of the build", { timeout: 240_000 }, async () => {
    expect(existsSync(CHROMIUM_PATH)).toBe(true);
    const port = 4187;
    server = await startPreview(port, join(root, "student"));
    const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
    try {
      const page = await browser.newPage();
      await page.goto(`http://localhost:${port}/#task=pass-at-k`);
      await page.getByTestId("python-status").and(page.locator('[data-state="ready"]')).waitFor({ timeout: 120_000 });
      await page.getByTestId("student-build").waitFor();
      await page.getByRole("button", { name: "Run tests" }).click();
      await page.locator('[data-testid="results-wrap"][data-runs="1"]').waitFor({ timeout: 60_000 });
      await page.getByRole("tab", { name: "Feedback", exact: true }).click();
      const ladder = page.getByTestId("ladder");
      for (let l = 1; l <= 3; l++) await page.getByRole("button", { name: `Ask for more help (L${l})` }).click();
      expect(await ladder.getAttribute("data-reached")).toBe("3");
      expect(await ladder.getAttribute("data-cap")).toBe("3");
      expect(await page.getByLabel("L4", { exact: true }).count()).toBe(0);
      expect(await page.getByTestId("level-cap").textContent()).toBe("L4 (the canonical solution's code) is not part of this build.");
    } finally {
      await browser.close();
    }
  });
});
