// `npm start` checks its port before the build (a minute), so that a port in use is said at once and plainly.
import { createServer } from "node:net";

const port = Number(process.env.PORT ?? 4173);
const server = createServer();
server.once("error", (e) => {
  const why = e.code === "EADDRINUSE" ? "is in use" : `cannot be used (${e.code ?? e.message})`;
  process.stderr.write(`npm start: port ${port} ${why}: stop what uses it, or start on another port: PORT=4400 npm start\n`);
  process.exit(1);
});
server.listen(port, () => server.close());
