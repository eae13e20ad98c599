#!/usr/bin/env node
// Writes test/timings.json, the order `npm test` runs its files in (slowest first: test/helpers/sequencer.ts), from
// a vitest JSON report of a whole run: `npx vitest run --reporter=json --outputFile=report.json`, then
// `node scripts/test-timings.mjs report.json`. Each file's seconds from its start to its end, slowest first.
import { readFileSync, writeFileSync } from "node:fs";
import { relative } from "node:path";

const [report] = process.argv.slice(2);
if (report === undefined) {
  console.error("usage: node scripts/test-timings.mjs <vitest JSON report>");
  process.exit(2);
}
const { testResults } = JSON.parse(readFileSync(report, "utf8"));
const root = new URL("..", import.meta.url).pathname;
const seconds = testResults
  .map((file) => [relative(root, file.name).replace(/^.*?(?=test\/)/, ""), Math.round((file.endTime - file.startTime) / 100) / 10])
  .sort((a, b) => b[1] - a[1]);
writeFileSync(new URL("../test/timings.json", import.meta.url), `${JSON.stringify(Object.fromEntries(seconds), null, 1)}\n`);
console.log(`test/timings.json: ${seconds.length} files`);
