import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["tests/unit/**/*.test.ts", "tests/integration/**/*.test.ts"],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    // Pyodide instances are heavy (100-150 MB, ~2 s to load): keep files serial on 2 cores.
    fileParallelism: false,
  },
});
