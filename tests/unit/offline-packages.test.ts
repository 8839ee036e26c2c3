/** Which package files a task needs offline, and when the page blocks its Run for want of a network. */
import { describe, expect, it } from "vitest";
import type { Task } from "../../src/core/task";
import { isPackageFile, offlineBlocker, packageFileURLs } from "../../src/ui/offline/package-files";

const LOCK = {
  packages: {
    numpy: { file_name: "numpy-2.2.5-cp313-cp313-pyodide_2025_0_wasm32.whl", depends: [] },
    scipy: { file_name: "scipy-1.14.1-cp313-cp313-pyodide_2025_0_wasm32.whl", depends: ["numpy", "openblas"] },
    openblas: { file_name: "openblas-0.3.26.zip", depends: [] },
  },
};
const BASE = "https://cdn.example/pyodide/full/";

function taskNeeding(packages: string[]): Task {
  return { meta: { packages } } as unknown as Task;
}

describe("packageFileURLs", () => {
  it("lists a package's file and its dependencies' under the package source", () => {
    expect(packageFileURLs(LOCK, ["scipy"], BASE)?.sort()).toEqual(
      [
        `${BASE}numpy-2.2.5-cp313-cp313-pyodide_2025_0_wasm32.whl`,
        `${BASE}openblas-0.3.26.zip`,
        `${BASE}scipy-1.14.1-cp313-cp313-pyodide_2025_0_wasm32.whl`,
      ].sort(),
    );
  });
  it("is null when a package is not in the lock file", () => {
    expect(packageFileURLs(LOCK, ["torch"], BASE)).toBeNull();
  });
  it("knows package files by their names", () => {
    expect(isPackageFile(new URL(`${BASE}openblas-0.3.26.zip`))).toBe(true);
    expect(isPackageFile(new URL(`${BASE}numpy-2.2.5-cp313-cp313-pyodide_2025_0_wasm32.whl`))).toBe(true);
    expect(isPackageFile(new URL("https://x/assets/index.js"))).toBe(false);
  });
});

describe("offlineBlocker", () => {
  it("blocks nothing online", () => {
    expect(offlineBlocker(taskNeeding(["numpy"]), { online: true, reason: null, stored: new Set() })).toBeNull();
  });
  it("offline, blocks a task whose package was never stored, and names it", () => {
    const why = offlineBlocker(taskNeeding(["numpy"]), { online: false, reason: "x", stored: new Set() });
    expect(why).toContain("numpy");
  });
  it("offline, lets a standard-library task and a task whose packages are stored run", () => {
    const state = { online: false, reason: "x", stored: new Set(["numpy"]) };
    expect(offlineBlocker(taskNeeding([]), state)).toBeNull();
    expect(offlineBlocker(taskNeeding(["NumPy"]), state)).toBeNull();
  });
});
