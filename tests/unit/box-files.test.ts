/**
 * What the page hands into its Python box: Pyodide's own files and the wheels
 * its lock file lists, nothing else, fetched from a real local HTTP server.
 */
import { createHash } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { boxFile } from "../../src/python/box-files";

const WHEEL = Buffer.from("a wheel's bytes");
const TAMPERED = Buffer.from("not the wheel the lock file names");
const lock = {
  packages: {
    good: { file_name: "good-1.0-py3-none-any.whl", sha256: createHash("sha256").update(WHEEL).digest("hex") },
    tampered: { file_name: "tampered-1.0-py3-none-any.whl", sha256: createHash("sha256").update(WHEEL).digest("hex") },
  },
};

describe("the files the page hands into its box", () => {
  let server: Server;
  let base = "";
  const hits: string[] = [];
  beforeAll(async () => {
    server = createServer((req, res) => {
      hits.push(req.url ?? "");
      if (req.url === "/pyodide/pyodide-lock.json") res.end(JSON.stringify(lock));
      else if (req.url === "/pyodide/pyodide.mjs") res.end("export const x = 1;");
      else if (req.url === "/wheels/good-1.0-py3-none-any.whl") res.end(WHEEL);
      else if (req.url === "/wheels/tampered-1.0-py3-none-any.whl") res.end(TAMPERED);
      else {
        res.statusCode = 404;
        res.end();
      }
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));
  const src = () => ({ indexURL: `${base}/pyodide/`, packageBaseUrl: `${base}/wheels/` });

  it("hands in Pyodide's own files and the wheels the lock file lists, checked against its SHA-256", async () => {
    expect(Buffer.from(await boxFile(src(), `${base}/pyodide/pyodide.mjs`)).toString()).toBe("export const x = 1;");
    expect(Buffer.from(await boxFile(src(), `${base}/wheels/good-1.0-py3-none-any.whl`))).toEqual(WHEEL);
    await expect(boxFile(src(), `${base}/wheels/tampered-1.0-py3-none-any.whl`)).rejects.toThrow(/could not fetch .*tampered/);
  });

  it("refuses any other URL without fetching it", async () => {
    const before = hits.length;
    for (const url of [
      `${base}/`,
      `${base}/tasks/min-p-sampling/canonical.py`,
      `${base}/pyodide/../secret`,
      `${base}/wheels/unlisted.whl`,
      "http://127.0.0.1:9/leak",
    ]) {
      await expect(boxFile(src(), url), url).rejects.toThrow(/is not a file of Pyodide or of a package its lock file lists/);
    }
    // Only the lock file may have been read.
    expect(hits.slice(before).filter((h) => h !== "/pyodide/pyodide-lock.json")).toEqual([]);
  });

  it("says which URL failed and how", async () => {
    await expect(boxFile(src(), `${base}/pyodide/pyodide.asm.wasm`)).rejects.toThrow(
      `could not fetch ${base}/pyodide/pyodide.asm.wasm (HTTP 404)`,
    );
  });
});
