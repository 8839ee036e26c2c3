#!/usr/bin/env node
// The `recode` command. Registers tsx so the TypeScript sources run as they are.
import { register } from "tsx/esm/api";

register();
const { main } = await import("../src/cli/main.ts");
process.exitCode = await main(process.argv);
