#!/usr/bin/env node
// The PSD fidelity report: every file of the corpus (test/fixtures/psd/manifest.json) through the embedded editor
// of dist/ (run `npm run -s build` first), measured as the fidelity suite measures it, printed as the table of
// docs/psd-fidelity.md and one row per file.
//
//   node scripts/psd-fidelity.mjs                 the table, then a row per file
//   node scripts/psd-fidelity.mjs --json          every measurement as JSON
//   node scripts/psd-fidelity.mjs --only layers/  files whose path contains the text
//   node scripts/psd-fidelity.mjs --describe      refresh the manifest's facts (checksum, header, what each file
//                                                 exercises) and add entries for new files under a known source
//   node scripts/psd-fidelity.mjs --record        also write today's outcomes as each file's recorded ones
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { corpusFile, corpusPaths, describeFile, loadManifest, saveManifest } from "./psd-fidelity/manifest.js";
import { measureFile } from "./psd-fidelity/measure.js";
import { fileTable, outcomesOf, ratchet, summarise, summaryTable } from "./psd-fidelity/report.js";

const { values } = parseArgs({
  options: { json: { type: "boolean" }, only: { type: "string" }, describe: { type: "boolean" }, record: { type: "boolean" } },
});

const manifest = await loadManifest();
if (values.describe || values.record) await describeAll(manifest);
const entries = manifest.files.filter((entry) => !values.only || entry.path.includes(values.only));
const rows = await measureAll(entries);
if (values.record) {
  for (const { entry, result } of rows) entry.expected = outcomesOf(result);
}
if (values.describe || values.record) await saveManifest(manifest);

if (values.json) {
  console.log(JSON.stringify({ summary: summarise(rows), files: rows.map(({ entry, result }) => ({ path: entry.path, ...result })) }, null, 2));
} else {
  console.log(`PSD fidelity: ${rows.length} files of test/fixtures/psd through the embedded editor (dist/)\n`);
  console.log(summaryTable(summarise(rows)));
  console.log("");
  console.log(fileTable(rows));
  const moved = rows.map((row) => ({ path: row.entry.path, ...ratchet(row.entry.expected, row.result) })).filter((r) => r.worse.length + r.better.length > 0);
  if (moved.length > 0) {
    console.log("\nAgainst the recorded outcomes:");
    for (const r of moved) console.log(`  ${r.path}: ${[...r.worse.map((w) => `WORSE ${w}`), ...r.better.map((b) => `better ${b}`)].join("; ")}`);
  }
}

/** Measures each entry in one embedded editor, one file at a time. */
async function measureAll(list) {
  const { createEmbeddedHost } = await import("../dist/index.js");
  const host = createEmbeddedHost({ sample: false });
  await host.connect();
  const ctx = { signal: new AbortController().signal, caller: "psd-fidelity" };
  const workDir = await mkdtemp(join(tmpdir(), "psd-fidelity-"));
  const out = [];
  try {
    for (const entry of list) out.push({ entry, result: await measureFile(host, ctx, corpusFile(entry), { workDir }) });
  } finally {
    await host.close();
    await rm(workDir, { recursive: true, force: true });
  }
  return out;
}

/** Refreshes each entry's facts from its bytes and adds entries for files of a known source not yet listed. */
async function describeAll(m) {
  const listed = new Map(m.files.map((entry) => [entry.path, entry]));
  for (const path of await corpusPaths()) {
    if (listed.has(path)) continue;
    const [sourceName, ...rest] = path.split("/");
    const source = m.sources[sourceName];
    if (!source) throw new Error(`${path}: no source "${sourceName}" in the manifest's sources`);
    const entry = { path, source: { repo: source.repo, commit: source.commit, path: `${source.root}/${rest.join("/")}` }, licence: source.licence };
    m.files.push(entry);
    listed.set(path, entry);
  }
  for (const entry of m.files) Object.assign(entry, describeFile(await readFile(corpusFile(entry))));
  m.files.sort((a, b) => a.path.localeCompare(b.path));
}
