/**
 * A catcher server on the loopback address, for tests that attack the boxes:
 * every request it receives is noted in `hits` (a box must let none through).
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

/** A listening catcher; `close()` stops it. */
export interface Catcher {
  port: number;
  /** Paths of the requests received, in order. */
  hits: string[];
  close(): Promise<void>;
}

/** Start a catcher on 127.0.0.1 on a free port. */
export async function startCatcher(): Promise<Catcher> {
  const hits: string[] = [];
  const server = createServer((req, res) => {
    hits.push(req.url ?? "");
    res.end("caught");
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return {
    port: (server.address() as AddressInfo).port,
    hits,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}
