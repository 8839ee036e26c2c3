/**
 * A plain static file server for the built page (`dist/`), with no special
 * headers unless asked: what a user gets from an ordinary web host (no
 * cross-origin isolation). It can be stopped and started again on the same
 * port (the same origin, so the same service worker), serving another folder.
 */
import { createReadStream, statSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { extname, join, normalize } from "node:path";

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript",
  ".mjs": "text/javascript",
  ".css": "text/css",
  ".json": "application/json",
  ".wasm": "application/wasm",
  ".zip": "application/zip",
  ".svg": "image/svg+xml",
  ".ttf": "font/ttf",
  ".woff2": "font/woff2",
  ".whl": "application/zip",
};

/** A listening static host; `close()` stops it. */
export interface StaticHost {
  url: string;
  close(): Promise<void>;
}

/** Options of {@link startStaticHost}. */
export interface StaticHostOptions {
  /** Headers sent with every file (e.g. COOP/COEP). */
  headers?: Record<string, string>;
  /** Port to listen on (default: a free one). */
  port?: number;
  /** Paths (e.g. "/pyodide/pyodide.asm.wasm") whose download breaks off halfway: half the bytes, then the connection is cut. */
  cut?: string[];
}

/** Serve `root` on 127.0.0.1 on a free port (or `opts.port`). `close()` also ends open connections. */
export async function startStaticHost(root: string, opts: StaticHostOptions = {}): Promise<StaticHost> {
  const server = createServer((req, res) => {
    const path = normalize(decodeURIComponent(new URL(req.url ?? "/", "http://x").pathname)).replace(/^(\.\.[/\\])+/, "");
    let file = join(root, path);
    try {
      if (statSync(file).isDirectory()) file = join(file, "index.html");
      statSync(file);
    } catch {
      res.statusCode = 404;
      res.end("not found");
      return;
    }
    for (const [k, v] of Object.entries(opts.headers ?? {})) res.setHeader(k, v);
    res.setHeader("Content-Type", TYPES[extname(file)] ?? "application/octet-stream");
    if (opts.cut?.includes(path)) {
      const size = statSync(file).size;
      res.setHeader("Content-Length", String(size));
      createReadStream(file, { end: Math.floor(size / 2) })
        .on("end", () => res.destroy())
        .pipe(res, { end: false });
      return;
    }
    createReadStream(file).pipe(res);
  });
  await new Promise<void>((r) => server.listen(opts.port ?? 0, "127.0.0.1", r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    close: () =>
      new Promise<void>((r) => {
        server.close(() => r());
        server.closeAllConnections();
      }),
  };
}
