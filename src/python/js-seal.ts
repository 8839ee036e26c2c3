/**
 * The worker's JavaScript sealed before candidate code runs: what Python code
 * that still reaches a JavaScript object could otherwise use (the Function
 * constructor, planted prototype methods, the network through Emscripten's
 * sockets). The worker core calls all three once, after the harness is loaded
 * and after `recode_harness.seal()`.
 */
import type { PyodideAPI } from "pyodide";

/**
 * Remove the `constructor` property from the prototypes of every kind of
 * function, so that a JavaScript object Python code might still reach cannot
 * give it the Function constructor (`f.constructor("return globalThis")()`),
 * and with it the worker's globals. The constructors stay available to
 * JavaScript by name (`Function`), which Python cannot name.
 */
export function sealFunctionConstructors(): void {
  const kinds = [
    (() => {}).constructor,
    // biome-ignore lint/complexity/useArrowFunction: the constructor of each kind of function is needed
    async function () {}.constructor,
    function* () {}.constructor,
    async function* () {}.constructor,
  ];
  for (const ctor of kinds) {
    const proto = (ctor as { prototype?: object }).prototype;
    if (proto && Object.hasOwn(proto, "constructor")) {
      Object.defineProperty(proto, "constructor", { value: undefined, writable: false, configurable: false });
    }
  }
}

/**
 * Freeze the prototypes every JavaScript object inherits from, so that code
 * which reaches a JavaScript object cannot plant getters or methods on them
 * that the worker's own code would later run (prototype pollution).
 */
export function freezeIntrinsics(): void {
  const protos: object[] = [
    Object.prototype,
    Array.prototype,
    Function.prototype,
    String.prototype,
    Number.prototype,
    Boolean.prototype,
    Promise.prototype,
    Map.prototype,
    Set.prototype,
    Error.prototype,
    RegExp.prototype,
    Symbol.prototype,
  ];
  // Typed arrays, buffers and the other error kinds: Python can come by such objects (bytes it converts, a JsException's error).
  const typed = [Int8Array, Uint8Array, Uint8ClampedArray, Int16Array, Uint16Array, Int32Array, Uint32Array, Float32Array, Float64Array];
  protos.push(Object.getPrototypeOf(Uint8Array.prototype) as object, ...typed.map((t) => t.prototype));
  if (typeof BigInt64Array === "function") protos.push(BigInt64Array.prototype, BigUint64Array.prototype);
  protos.push(ArrayBuffer.prototype, DataView.prototype, WeakMap.prototype, WeakSet.prototype, Date.prototype);
  if (typeof SharedArrayBuffer === "function") protos.push(SharedArrayBuffer.prototype);
  protos.push(
    TypeError.prototype,
    RangeError.prototype,
    SyntaxError.prototype,
    ReferenceError.prototype,
    EvalError.prototype,
    URIError.prototype,
  );
  // WebAssembly's: the worker's own code grows, reads and restores the instance's memory and table through them.
  const wasm = [WebAssembly.Memory, WebAssembly.Table, WebAssembly.Module, WebAssembly.Instance, WebAssembly.Global];
  protos.push(...wasm.map((w) => w.prototype));
  // What the worker reports through: its text decoding and its message port (in Node and in the page).
  for (const name of ["TextDecoder", "TextEncoder", "MessagePort", "EventTarget"]) {
    const ctor = (globalThis as Record<string, unknown>)[name] as { prototype?: object } | undefined;
    if (ctor?.prototype) protos.push(ctor.prototype);
  }
  for (const name of ["WeakRef", "FinalizationRegistry", "BigInt", "Iterator"]) {
    const ctor = (globalThis as Record<string, unknown>)[name] as { prototype?: object } | undefined;
    if (ctor?.prototype) protos.push(ctor.prototype);
  }
  for (const p of protos) Object.freeze(p);
  // The constructors and namespaces themselves: any JavaScript object leads to its constructor, and a
  // property planted there outlives the run (the memory restore does not reach JavaScript); some are
  // what the worker and Emscripten call later (String.fromCharCode, Uint8Array.from, a typed array's species).
  const statics: object[] = [Object, Array, Function, JSON, Reflect, Promise, WebAssembly, Math, String, Number, Boolean, Symbol];
  statics.push(Map, Set, WeakMap, WeakSet, Date, RegExp, ArrayBuffer, DataView, ...typed, Object.getPrototypeOf(Uint8Array) as object);
  for (const name of [
    "BigInt",
    "BigInt64Array",
    "BigUint64Array",
    "SharedArrayBuffer",
    "Atomics",
    "Proxy",
    "WeakRef",
    "FinalizationRegistry",
    "Iterator",
  ]) {
    const o = (globalThis as Record<string, unknown>)[name];
    if ((typeof o === "function" || typeof o === "object") && o !== null) statics.push(o);
  }
  for (const o of statics) Object.freeze(o);
  // V8 calls Error.prepareStackTrace with call sites that lead to the WebAssembly instance and its memory.
  // (Error itself cannot be frozen: Pyodide sets Error.stackTraceLimit.)
  Object.defineProperty(Error, "prepareStackTrace", { value: undefined, writable: false, configurable: false });
  // The error constructors: a JavaScript error that Python holds leads to them (`constructor`), and a property
  // planted on one would outlive the run (the memory restore does not reach JavaScript). Error keeps its
  // stackTraceLimit writable (Pyodide sets it; the worker puts it back after every run) and nothing else.
  const errors = [TypeError, RangeError, SyntaxError, ReferenceError, EvalError, URIError];
  for (const name of ["AggregateError", "DOMException"]) {
    const ctor = (globalThis as Record<string, unknown>)[name];
    if (typeof ctor === "function") errors.push(ctor as typeof TypeError);
  }
  for (const ctor of errors) Object.freeze(ctor);
  for (const key of Reflect.ownKeys(Error)) {
    const d = Object.getOwnPropertyDescriptor(Error, key);
    if (key !== "stackTraceLimit" && d?.configurable) {
      Object.defineProperty(Error, key, "value" in d ? { writable: false, configurable: false } : { configurable: false });
    }
  }
  Object.preventExtensions(Error);
  // Freezing is shallow: a method on a frozen prototype is an object of its own (a property planted on
  // Array.prototype.at outlived the run). Everything reachable from these intrinsics, through their
  // properties, accessors and prototypes, is frozen too; the iterator prototypes are reached from iterators.
  const iterators = [
    [][Symbol.iterator](),
    new Map()[Symbol.iterator](),
    new Set()[Symbol.iterator](),
    ""[Symbol.iterator](),
    /x/[Symbol.matchAll](""),
  ];
  const generators = [(function* () {})(), (async function* () {})()];
  hardenFrom([
    ...protos,
    ...statics,
    ...errors,
    Error,
    ...iterators.map((i) => Object.getPrototypeOf(i)),
    ...generators.map((g) => Object.getPrototypeOf(g)),
  ]);
}

/**
 * Freeze every object reachable from `roots` through own properties (values, getters and setters) and
 * prototypes; Error itself keeps its writable stackTraceLimit (it is closed to new properties above).
 */
function hardenFrom(roots: readonly unknown[]): void {
  const seen = new WeakSet<object>();
  const stack: unknown[] = [...roots];
  while (stack.length > 0) {
    const o = stack.pop();
    if ((typeof o !== "object" && typeof o !== "function") || o === null || seen.has(o) || o === globalThis) continue;
    seen.add(o);
    if (o !== Error) Object.freeze(o);
    for (const key of Reflect.ownKeys(o)) {
      const d = Object.getOwnPropertyDescriptor(o, key);
      if (d) stack.push(d.value, d.get, d.set);
    }
    stack.push(Object.getPrototypeOf(o));
  }
}

/** Error.stackTraceLimit as V8 starts with it: the one property of Error a run can change, put back after each run. */
export const STACK_TRACE_LIMIT = 10;

/**
 * Take away the one JavaScript function that makes a new JavaScript object
 * from Python's arguments, Pyodide's `deserializeError` (behind
 * `JsException(name, message)`): it now makes an inert object with no
 * prototype, so nothing leads from it to a constructor. The harness's seal
 * refuses that constructor too; this holds if a route to it is ever found.
 */
export function sealErrorMaker(py: PyodideAPI): void {
  const api = (py as unknown as { _api?: { deserializeError?: unknown } })._api;
  if (api && "deserializeError" in api) {
    Object.defineProperty(api, "deserializeError", {
      value: () => Object.freeze(Object.create(null)),
      writable: false,
      configurable: false,
    });
  }
}

/**
 * Take the network away from Python's sockets: Emscripten's sockets (Python's
 * `socket`, and `urllib` on top of it) open a WebSocket to whatever address
 * Python connects to (in Node, through the `ws` package), so candidate code
 * would otherwise reach any server, the page's own origin included. The
 * worker itself never needs one.
 */
export function sealSockets(py: PyodideAPI): void {
  const refuse = function WebSocket(): never {
    throw new Error("no network for code under test");
  };
  Object.defineProperty(globalThis, "WebSocket", { value: refuse, writable: false, configurable: false });
  // In Node, Emscripten opens sockets with the `ws` package instead (and listens with its server): refuse both.
  const mod = (py as unknown as { _module?: { SOCKFS?: { websocket_sock_ops?: Record<string, unknown> } } })._module;
  const ops = mod?.SOCKFS?.websocket_sock_ops;
  const fs = py.FS as unknown as { ErrnoError: new (errno: number) => Error };
  if (ops) {
    for (const name of ["createPeer", "listen"]) {
      ops[name] = () => {
        throw new fs.ErrnoError(EHOSTUNREACH);
      };
    }
  }
}

/** Emscripten's errno for "host is unreachable". */
const EHOSTUNREACH = 23;

/**
 * Take away code made from text, once the interpreter is sealed (no package
 * loads after that, so nothing legitimate needs it): the global `eval`, which
 * Emscripten's dynamic loader runs on a side module's `__em_js__` strings and
 * `emscripten_run_script*` on any C string, now refuses. A memory-safety bug
 * of CPython that lets Python load a crafted side module (or call those C
 * functions) then gets an ImportError instead of JavaScript in the worker.
 * Emscripten's loaders on the module object refuse too.
 */
export function sealCodeLoading(py: PyodideAPI): void {
  const refuse = (what: string) =>
    function refused(): never {
      throw new Error(`${what} is not available once Python is sealed`);
    };
  Object.defineProperty(globalThis, "eval", { value: refuse("eval"), writable: false, configurable: false });
  const mod = (py as unknown as { _module?: Record<string, unknown> })._module;
  for (const name of ["loadDynamicLibrary", "loadWebAssemblyModule", "loadSideModule"]) {
    if (mod && typeof mod[name] === "function") {
      Object.defineProperty(mod, name, { value: refuse(`loading a library (${name})`), writable: false, configurable: false });
    }
  }
}
