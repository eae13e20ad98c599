import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 20_000,
    hookTimeout: 20_000,
    // Two cores: two workers keep the suite fast without starving the servers under test.
    maxWorkers: 2,
  },
});
