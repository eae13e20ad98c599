/**
 * Real PSD/PSB files (test/fixtures/psd) through the embedded editor, held to the outcomes recorded in their
 * manifest: each opens or is refused with a named reason; its full-size export is compared with the composite
 * Photoshop stored in it; a save in its own format either is refused with what it would lose or reopens the same.
 * A ratchet: a file doing worse than recorded fails; one doing better is listed in
 * test-artifacts/psd-fidelity.json so the record can be raised (`node scripts/psd-fidelity.mjs --record`).
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { corpusFile, corpusPaths, loadManifest, sha256 } from "../../../scripts/psd-fidelity/manifest.js";
import { measureFile } from "../../../scripts/psd-fidelity/measure.js";
import { outcomesOf, ratchet, summarise, summaryTable } from "../../../scripts/psd-fidelity/report.js";
import type { Row } from "../../../scripts/psd-fidelity/report.js";
import type { HostAdapter } from "../../../src/hosts/host.js";
import { connectedHost, ctx } from "./helpers.js";

const ARTIFACT = join(resolve(import.meta.dirname, "../../.."), "test-artifacts", "psd-fidelity.json");
const manifest = await loadManifest();
/** Share of opened files (with a stored composite) whose export must be identical or close to Photoshop's. */
const COMPOSITE_BAR = 0.9;
/** Share of opened files that must save in place with nothing to lose and reopen the same. */
const ROUND_TRIP_BAR = 0.95;

describe("the PSD fidelity corpus through the embedded editor", () => {
  let host: HostAdapter;
  let workDir: string;
  const rows: Row[] = [];

  beforeAll(async () => {
    host = await connectedHost({ sample: false });
    workDir = await mkdtemp(join(tmpdir(), "psd-fidelity-"));
  });

  afterAll(async () => {
    await host?.close();
    if (workDir) await rm(workDir, { recursive: true, force: true });
    if (rows.length === 0) return;
    const better = rows.map((row) => ({ path: row.entry.path, now: outcomesOf(row.result), ...ratchet(row.entry.expected, row.result) })).filter((r) => r.better.length > 0);
    const summary = summarise(rows);
    await mkdir(join(ARTIFACT, ".."), { recursive: true });
    await writeFile(ARTIFACT, `${JSON.stringify({ summary, better, files: rows.map((r) => ({ path: r.entry.path, ...r.result })) }, null, 2)}\n`);
    if (better.length > 0) {
      console.log(`PSD fidelity: ${better.length} file(s) now do better than recorded (raise with \`node scripts/psd-fidelity.mjs --record\`):`);
      for (const r of better) console.log(`  ${r.path}: ${r.better.join("; ")}`);
    }
    console.log(`PSD fidelity now:\n${summaryTable(summary)}`);
  });

  it("lists every file of the corpus folder, with the checksum of its committed bytes", async () => {
    expect(manifest.files.map((entry) => entry.path).sort()).toEqual(await corpusPaths());
    for (const entry of manifest.files) {
      expect(sha256(await readFile(corpusFile(entry))), entry.path).toBe(entry.sha256);
      expect(entry.expected, `${entry.path} has recorded outcomes`).toBeDefined();
    }
  });

  it("the recorded outcomes hold the bar: 90 % of opened files match Photoshop's composite, 95 % save losslessly", () => {
    // Each file is held to its record below, so the whole corpus is held to this too.
    const opened = manifest.files.filter((entry) => entry.expected?.open === "opens");
    const withReference = opened.filter((entry) => entry.expected?.composite !== undefined && entry.expected.composite !== "n/a");
    const matching = withReference.filter((entry) => entry.expected?.composite === "identical" || entry.expected?.composite === "close");
    const lossless = opened.filter((entry) => entry.expected?.roundTrip === "lossless");
    expect(matching.length / withReference.length).toBeGreaterThanOrEqual(COMPOSITE_BAR);
    expect(lossless.length / opened.length).toBeGreaterThanOrEqual(ROUND_TRIP_BAR);
  });

  it.each(manifest.files.map((entry) => [entry.path, entry] as const))(
    "%s opens or is refused with a named reason, and does no worse than recorded",
    async (_path, entry) => {
      const result = await measureFile(host, ctx(), corpusFile(entry), { workDir });
      rows.push({ entry, result });
      if (result.refusal) expect(result.refusal.named, `refused without a named reason: ${result.refusal.code}: ${result.refusal.reason}`).toBe(true);
      const { worse } = ratchet(entry.expected, result);
      const detail = [result.composite.problem, result.roundTrip.problem, result.roundTrip.wouldLose?.join(", "), result.refusal?.reason].filter(Boolean).join("; ");
      expect(worse, `${entry.path} does worse than recorded (${detail})`).toEqual([]);
    },
  );
});
