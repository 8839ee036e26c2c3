import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { EventVerifier, newEventKey, toHex } from "../../src/python/event-auth";
import { FORGED_LINE } from "../../src/python/forged-line";

const PYTHON_DIR = resolve(__dirname, "../../src/python");
const dir = mkdtempSync(join(tmpdir(), "recode-event-lines-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The lines python3's harness writer (`event_writer`) writes for these calls: [text, hold]. */
function written(key: Uint8Array, calls: [string, boolean][]): string[] {
  const out = join(dir, `lines-${Math.random().toString(36).slice(2)}.txt`);
  const script = [
    "import json, os, sys",
    `sys.path.insert(0, ${JSON.stringify(PYTHON_DIR)})`,
    "import harness",
    `fd = os.open(${JSON.stringify(out)}, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)`,
    `w = harness.event_writer(fd, bytes.fromhex(${JSON.stringify(toHex(key))}))`,
    `for text, hold in json.loads(${JSON.stringify(JSON.stringify(calls))}):`,
    "    w(text, hold)",
  ].join("\n");
  execFileSync("python3", ["-c", script], { stdio: ["ignore", "ignore", "inherit"] });
  return readFileSync(out, "utf8").split("\n").filter(Boolean);
}

describe("the harness's event lines, as the host reads them", () => {
  const start = '{"type": "test-start", "id": "T.test_a"}';
  const outcome = '{"type": "test-outcome", "id": "T.test_a", "status": "passed"}';
  const check = '{"type": "check", "key": "k", "value": "[1]"}';
  const result = '{"type": "test-result", "id": "T.test_a"}';
  const end = '{"type": "end"}';

  it("writes held events with the next one not held, in one line, and the host reads each event in order", () => {
    const key = newEventKey();
    const lines = written(key, [
      [start, false],
      [outcome, true],
      [check, true],
      [result, false],
      [end, false],
    ]);
    expect(lines).toHaveLength(3);
    const v = new EventVerifier(key);
    expect(lines.flatMap((l) => v.events(l))).toEqual([start, outcome, check, result, end]);
  });

  it("refuses a line of several events under another key, or moved out of its place, as one forged line", () => {
    const key = newEventKey();
    const lines = written(key, [
      [outcome, true],
      [result, false],
      [end, false],
    ]);
    expect(new EventVerifier(newEventKey()).events(lines[0] as string)).toEqual([FORGED_LINE]);
    // The second line first: its number is 1, the verifier expects 0.
    const v = new EventVerifier(key);
    expect(v.events(lines[1] as string)).toEqual([FORGED_LINE]);
    expect(v.events(lines[0] as string)).toEqual([outcome, result]);
    expect(v.events(lines[1] as string)).toEqual([end]);
  });
});
