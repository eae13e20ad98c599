import { defineConfig } from "vitest/config";
import base, { ISOLATED_FILES, projects } from "./vitest.config.js";

/**
 * `npm run test:quick`, the edit-test loop: the unit suites and the conformance suite on the embedded editor. No
 * browser, GIMP, NATS, child-process bridges, docs walk or soak; `npm test` runs everything. The suite's settings
 * are `vitest.config.ts`'s; only what runs differs (a merged config would add these files to all of them). None of
 * these files needs a worker of its own (`ISOLATED_FILES`).
 */
export default defineConfig({
  test: {
    ...base.test,
    projects: projects(
      [
        "test/architecture.test.ts",
        "test/logger.test.ts",
        "test/package-root.test.ts",
        "test/protocol/**/*.test.ts",
        "test/methods/**/*.test.ts",
        "test/files/**/*.test.ts",
        "test/imports/**/*.test.ts",
        "test/actors/**/*.test.ts",
        "test/observability/**/*.test.ts",
        "test/hosts/embedded/**/*.test.ts",
        "test/conformance/**/*.test.ts",
      ],
      // Real photos through every cutout method: minutes of native work, not an edit-test loop's.
      ["test/hosts/embedded/cutout-photos.test.ts", "**/node_modules/**"],
      // The files of this command that need a worker of their own (the embedded editor's memory-budget files).
      ISOLATED_FILES.filter((file) => file.startsWith("test/hosts/embedded/")),
    ),
    env: { BRIDGE_TEST_EDITORS: "embedded" },
  },
});
