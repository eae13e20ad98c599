import { execFile } from "node:child_process";
import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { main } from "../../src/cli/serve.js";
import { cliCatalog } from "../../src/cli/usage.js";

const run = promisify(execFile);
const BIN = fileURLToPath(new URL("../../bin/image-editor-bridge.js", import.meta.url));
const CATALOG = new URL("../../dist/cli/catalog.json", import.meta.url);

/** What `main()` (the whole CLI, from the sources) prints for `argv`. */
async function printed(argv: string[]): Promise<string> {
  let text = "";
  await main(argv, { handleSignals: false, env: {}, stdout: { write: (chunk: string) => (text += chunk) } });
  return text;
}

describe("the commands that need no bridge", () => {
  it("the command prints, from the catalog the build wrote, what the whole CLI prints", async () => {
    for (const argv of [[], ["help"], ["version"], ["methods"], ["methods", "layer:getInfoById"], ["events"]]) {
      const { stdout, stderr } = await run(process.execPath, [BIN, ...argv]);
      expect(stderr).toBe("");
      expect(stdout, argv.join(" ")).toBe(await printed(argv));
    }
  });

  it("the build's catalog is the one the sources make (npm run build refreshes it)", async () => {
    expect(JSON.parse(await readFile(CATALOG, "utf8"))).toEqual(JSON.parse(JSON.stringify(cliCatalog())));
  });

  it("events has a section for each editor, GIMP's included", async () => {
    const text = await printed(["events"]);
    const sections = text.split("\n").filter((line) => line.endsWith(":"));
    expect(sections).toEqual(["every editor (the bridge's own events):", "the embedded editor:", "Photoshop:", "GIMP:"]);
    expect(text).toMatch(/^GIMP:\n {2}documentChanged$/m);
  });
});
