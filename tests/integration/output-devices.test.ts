import { describe, expect, it } from "vitest";
import { dropDeviceOutput } from "../../src/python/output-devices";

type Ttys = Record<number, { output: number[] } | undefined>;

/** Bytes Emscripten holds in JavaScript for its terminal devices (until a newline). */
function heldByTtys(py: unknown): number {
  const ttys = (py as { _module: { TTY: { ttys: Ttys } } })._module.TTY.ttys;
  return Object.values(ttys).reduce((n, t) => n + (t?.output.length ?? 0), 0);
}

// (The terminals are left open: closing one writes out what it holds, as a newline does.)
const WRITE = `import os
_n = 0
for _path in ("/dev/tty", "/dev/tty1"):
    _fd = os.open(_path, os.O_WRONLY)
    _n += os.write(_fd, b"x" * 200_000)
_n += os.write(1, b"y" * 200_000) + os.write(2, b"z" * 200_000)
_n`;

describe("Pyodide's output devices keep nothing in JavaScript", () => {
  it("bytes with no newline written to /dev/tty, /dev/tty1 and descriptors 1 and 2 are taken and dropped, not gathered", async () => {
    const { loadPyodide } = await import("pyodide");
    const py = await loadPyodide({ stdout: () => {}, stderr: () => {} });
    // As Emscripten has it: a run's bytes stay in JavaScript, outside the memory the restore puts back.
    expect(py.runPython(WRITE)).toBe(800_000);
    expect(heldByTtys(py)).toBe(400_000);
    dropDeviceOutput(py);
    expect(heldByTtys(py)).toBe(0);
    expect(py.runPython(WRITE)).toBe(800_000);
    expect(heldByTtys(py)).toBe(0);
    // The terminals' other operations are as they were (a terminal's size, what isatty says).
    expect(
      py
        .runPython(
          `import os; _fd = os.open("/dev/tty", os.O_WRONLY); _r = (os.isatty(_fd), tuple(os.get_terminal_size(_fd))); os.close(_fd); _r`,
        )
        .toJs(),
    ).toEqual([true, [80, 24]]);
  }, 120_000);
});
