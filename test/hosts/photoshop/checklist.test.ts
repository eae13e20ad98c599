import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { startFake } from "./_setup.js";

const run = promisify(execFile);
const SCRIPT = new URL("../../../scripts/photoshop-checklist.mjs", import.meta.url).pathname;

interface Row {
  check: string;
  ok: "ok" | "FAIL";
  note: string;
}

// The checklist imports the bridge from dist/: run `npm run -s build` before this test.
describe("scripts/photoshop-checklist.mjs", () => {
  it("runs every operation once against a Photoshop and reports each open question as a row", async () => {
    const fake = await startFake();
    const { stdout } = await run(process.execPath, [SCRIPT, "--port", String(fake.port), "--json"], {
      env: { ...process.env, BRIDGE_PHOTOSHOP_PASSWORD: fake.password },
      timeout: 60_000,
    }).catch((e: { stdout: string }) => e);
    const rows = JSON.parse(stdout) as Row[];
    const verdict = Object.fromEntries(rows.map((r) => [r.check, r.ok]));
    // What only a real Photoshop can answer fails here: the stub models no foreground colour (no documented event
    // format). The curve handles and the ActionManager layer tree pass as the documentation describes them.
    expect(rows.filter((r) => r.ok === "FAIL").map((r) => r.check)).toEqual(["foregroundColorChanged data stays a string (D10)"]);
    expect(rows.find((r) => r.check.startsWith("layer tree:"))?.note).toMatch(/^3 documents read the same both ways/);
    for (const d of ["(D1, D7)", "(D2)", "(D3", "(D4)", "(D5)", "(D6)", "(D8)", "(D12)"]) {
      expect(rows.some((r) => r.check.includes(d)), d).toBe(true);
    }
    // One row per edit script and one for the history, each passing on the stub, which models the documentation.
    for (const e of ["(E1)", "(E2)", "(E3)", "(E4)", "(E5)", "(E6)", "(E7)", "(E8)", "(E9)", "(E10)", "(E11)", "(H1)"]) {
      expect(rows.find((r) => r.check.includes(e))?.ok, e).toBe("ok");
    }
    // E10 makes a pattern fill from a small PNG and reads it back; the preset it defined is gone again.
    expect(rows.find((r) => r.check.includes("(E10)"))?.note).toMatch(/a pattern fill from a 4×2 PNG read back as \{"type":"pattern","name":"bridge pattern checklist-\d+"\}/);
    expect(fake.model.patternPresets).toEqual([]);
    expect(verdict["document.close"]).toBe("ok");
    expect(fake.model.docs.map((d) => d.name)).toEqual(["Sample"]);
  }, 70_000);
});
