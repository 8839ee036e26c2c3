// Node worker-thread entry of the Pyodide runtime. Plain JS so that it starts
// the same way under tsx, vitest and the `recode` command; it registers tsx and
// loads the TypeScript entry.
import { register } from "tsx/esm/api";

register();
await import("./node-worker-entry.ts");
