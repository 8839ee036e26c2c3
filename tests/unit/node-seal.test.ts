import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";

/**
 * In a child Node process (the seal is for good), after `sealProcesses`:
 * the routes to a process that code reaching JavaScript would take.
 */
function afterSeal(seal: boolean): Record<string, string> {
  const script = `
const { sealProcesses } = await import("./src/python/node-seal.ts");
if (${seal}) sealProcesses();
const cp = await import("node:child_process");
const out = {};
const attempt = (name, f) => { try { out[name] = String(f()); } catch (e) { out[name] = /no (processes|internal bindings) for code under test/.test(e.message) ? "refused" : "failed"; } };
attempt("child_process.spawnSync", () => cp.spawnSync("/bin/sh", ["-c", "exit 7"]).status);
attempt("process.binding spawn_sync", () => process.binding("spawn_sync").spawn({ file: "/bin/sh", args: ["/bin/sh", "-c", "exit 7"], stdio: [{ type: "ignore" }, { type: "ignore" }, { type: "ignore" }], envPairs: [] }).status);
attempt("process.binding fs", () => typeof process.binding("fs").open);
attempt("process.dlopen", () => process.dlopen({ exports: {} }, "/nonexistent.node"));
attempt("process.binding constants", () => typeof process.binding("constants").fs.O_CREAT);
console.log(JSON.stringify(out));
`;
  const res = spawnSync(process.execPath, ["--import", "tsx/esm", "--input-type=module", "-e", script], {
    encoding: "utf8",
    cwd: process.cwd(),
  });
  if (res.status !== 0) throw new Error(`child failed: ${res.stderr}`);
  return JSON.parse(res.stdout.trim().split("\n").at(-1) ?? "{}");
}

describe("sealProcesses", () => {
  it("without it, a process starts through child_process and through process.binding", () => {
    const r = afterSeal(false);
    expect(r["child_process.spawnSync"]).toBe("7");
    expect(r["process.binding spawn_sync"]).toBe("7");
    expect(r["process.dlopen"]).toBe("failed");
  });

  it("with it, no route starts a process or reaches a binding, and NODEFS still gets its constants", () => {
    const r = afterSeal(true);
    expect(r["child_process.spawnSync"]).toBe("127");
    expect(r["process.binding spawn_sync"]).toBe("refused");
    expect(r["process.binding fs"]).toBe("refused");
    expect(r["process.dlopen"]).toBe("refused");
    expect(r["process.binding constants"]).toBe("number");
  });
});
