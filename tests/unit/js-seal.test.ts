import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";

/**
 * Runs `freezeIntrinsics` in a child Node process (it freezes that process's
 * globals for good), then plants methods as code that reached a JavaScript
 * object would, and reports which plantings took.
 */
function plantAfterFreeze(): Record<string, boolean> {
  const script = `
const { freezeIntrinsics } = await import("./src/python/js-seal.ts");
freezeIntrinsics();
const took = {};
const plant = (name, target, key) => {
  const planted = () => "planted";
  try { Object.defineProperty(target, key, { value: planted, writable: true, configurable: true }); } catch {}
  took[String(name)] = Object.getOwnPropertyDescriptor(target, key)?.value === planted;
};
plant("Memory.prototype.grow", WebAssembly.Memory.prototype, "grow");
plant("Table.prototype.get", WebAssembly.Table.prototype, "get");
plant("Table.prototype.set", WebAssembly.Table.prototype, "set");
plant("Instance.prototype.exports", WebAssembly.Instance.prototype, "exports");
plant("Global.prototype.valueOf", WebAssembly.Global.prototype, "valueOf");
plant("WebAssembly.instantiate", WebAssembly, "instantiate");
plant("WebAssembly.compile", WebAssembly, "compile");
plant("Object.prototype.toJSON", Object.prototype, "toJSON");
plant("TextDecoder.prototype.decode", TextDecoder.prototype, "decode");
plant("MessagePort.prototype.postMessage", MessagePort.prototype, "postMessage");
plant("EventTarget.prototype.dispatchEvent", EventTarget.prototype, "dispatchEvent");
plant("TypeError.recode_leak", TypeError, "recode_leak");
plant("RangeError.recode_leak", RangeError, "recode_leak");
plant("Error.recode_leak", Error, "recode_leak");
plant("Error.captureStackTrace", Error, "captureStackTrace");
plant("Set.recode_leak", Set, "recode_leak");
plant("String.fromCharCode", String, "fromCharCode");
plant("Uint8Array.from", Uint8Array, "from");
plant("TypedArray[Symbol.species]", Object.getPrototypeOf(Uint8Array), Symbol.species);
plant("Symbol.recode_leak", Symbol, "recode_leak");
plant("Array.prototype.at.recode_leak", Array.prototype.at, "recode_leak");
plant("ArrayIteratorPrototype.next", Object.getPrototypeOf([][Symbol.iterator]()), "next");
plant("Object.keys.recode_leak", Object.keys, "recode_leak");
// What must keep working: Pyodide sets Error.stackTraceLimit.
Error.stackTraceLimit = 7;
took["Error.stackTraceLimit stays writable (false is right)"] = Error.stackTraceLimit !== 7;
console.log(JSON.stringify(took));
`;
  const res = spawnSync(process.execPath, ["--import", "tsx/esm", "--input-type=module", "-e", script], {
    encoding: "utf8",
    cwd: process.cwd(),
  });
  if (res.status !== 0) throw new Error(`child failed: ${res.stderr}`);
  return JSON.parse(res.stdout.trim().split("\n").at(-1) ?? "{}");
}

describe("freezeIntrinsics", () => {
  it("leaves no method to plant on WebAssembly's prototypes or namespace, Object.prototype, the error constructors, or what the worker reports through", () => {
    const took = plantAfterFreeze();
    expect(Object.keys(took).length).toBe(24);
    expect(Object.entries(took).filter(([, v]) => v)).toEqual([]);
  });
});
