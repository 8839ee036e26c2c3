/**
 * The channel to a boxed process (box-channel.ts): messages of any size arrive
 * whole and in order, and a process that writes a frame that does not parse is
 * reported, never thrown at the host (Node's own IPC channel throws such a
 * frame as an uncaught exception, which ended `recode`).
 */
import { describe, expect, it } from "vitest";
import { spawnBoxed } from "../../src/python/box-channel";

/** Start `node -e script` with the channel; resolve with what arrived once it exits or is found bad. */
function run(script: string, send: unknown[] = [], expect = 0): Promise<{ messages: unknown[]; bad: string; code: number | null }> {
  return new Promise((resolve) => {
    const messages: unknown[] = [];
    let bad = "";
    const boxed = spawnBoxed(
      process.execPath,
      ["--import", "tsx/esm", "--input-type=module", "-e", script],
      (m) => {
        // All that was expected arrived: closing the host's end ends the process (hostChannel exits).
        if (messages.push(m) === expect) boxed.close();
      },
      (why) => {
        bad = why;
        boxed.child.kill("SIGKILL");
      },
    );
    for (const m of send) boxed.send(m);
    boxed.child.on("exit", (code) => {
      boxed.close();
      resolve({ messages, bad, code });
    });
  });
}

const ECHO = `
const { hostChannel } = await import(${JSON.stringify(new URL("../../src/python/box-channel.ts", import.meta.url).pathname)});
const host = hostChannel((m) => host.send({ echo: m, size: m?.bytes?.length ?? 0 }));
`;

describe("the box channel", () => {
  it("carries messages of any size whole and in order, both ways", async () => {
    const big = new Uint8Array(48 * 1024 * 1024).fill(7);
    const r = await run(ECHO, [{ type: "a" }, { type: "big", bytes: big }, { type: "c", n: 10n ** 30n }], 3);
    expect(r.bad).toBe("");
    expect(r.messages.map((m) => (m as { echo: { type: string } }).echo.type)).toEqual(["a", "big", "c"]);
    expect((r.messages[1] as { size: number }).size).toBe(big.length);
    expect((r.messages[2] as { echo: { n: bigint } }).echo.n).toBe(10n ** 30n);
  });

  it("a frame that does not deserialize is reported, and the host goes on", async () => {
    // The bytes that ended the host through Node's IPC channel: a length, then no valid serialization.
    const r = await run(
      `(await import("node:fs")).writeSync(3, Buffer.from([0, 0, 0, 8, 0xff, 0x0f, 0xfe, 0xfe, 0xfe, 0xfe, 0xfe, 0xfe])); setTimeout(() => {}, 5000);`,
    );
    expect(r.bad).toContain("does not deserialize");
    expect(r.messages).toEqual([]);
  });

  it("a frame longer than the limit is reported before it is read", async () => {
    const r = await run(`(await import("node:fs")).writeSync(3, Buffer.from([0xff, 0xff, 0xff, 0xff])); setTimeout(() => {}, 5000);`);
    expect(r.bad).toContain("a frame of 4294967295 bytes");
  });
});
