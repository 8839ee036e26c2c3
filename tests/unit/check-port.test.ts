/** `npm start` checks its port first (scripts/check-port.mjs): a port in use is said at once, with what to do. */
import { spawnSync } from "node:child_process";
import { createServer, type Server } from "node:net";
import { describe, expect, it } from "vitest";

const SCRIPT = new URL("../../scripts/check-port.mjs", import.meta.url).pathname;

function listen(): Promise<{ server: Server; port: number }> {
  return new Promise((resolve) => {
    const server = createServer();
    server.listen(0, () => resolve({ server, port: (server.address() as { port: number }).port }));
  });
}

describe("npm start's port check", () => {
  it("a port in use: exit 1 and a message naming it and PORT=", async () => {
    const { server, port } = await listen();
    try {
      const r = spawnSync(process.execPath, [SCRIPT], { env: { ...process.env, PORT: String(port) }, encoding: "utf8" });
      expect(r.status).toBe(1);
      expect(r.stderr).toBe(`npm start: port ${port} is in use: stop what uses it, or start on another port: PORT=4400 npm start\n`);
    } finally {
      server.close();
    }
  });

  it("a free port: exit 0, nothing said", async () => {
    const { server, port } = await listen();
    await new Promise((r) => server.close(r));
    const r = spawnSync(process.execPath, [SCRIPT], { env: { ...process.env, PORT: String(port) }, encoding: "utf8" });
    expect(r.status).toBe(0);
    expect(r.stderr).toBe("");
  });
});
