#!/usr/bin/env node
// Exports every PSD of a folder as a PNG of the same name.
//
//   node examples/recipes/batch-export.mjs <psd-folder> <png-folder> [--url http://127.0.0.1:7700]
//
// Paths are read and written by the bridge: run it on the same machine (or give folders inside its --files-root).
import { readdir, writeFile } from "node:fs/promises";
import { basename, extname, join } from "node:path";
import { connect, forEachFile, inAndOutFolders, parseArgs } from "./_connect.mjs";

const { url, rest } = parseArgs(process.argv.slice(2));
const [from, to] = await inAndOutFolders(rest, "batch-export.mjs <psd-folder> <png-folder> [--url <bridge>]");
const client = await connect(url);
const psds = (await readdir(from)).filter((n) => [".psd", ".psb"].includes(extname(n).toLowerCase())).sort();
await forEachFile(client, psds, async (name) => {
  const doc = await client.document.open({ path: join(from, name) });
  const image = await client.image.exportDocument({ documentId: doc.id, format: "png" });
  const out = join(to, `${basename(name, extname(name))}.png`);
  // The SDK hands image results as bytes (they crossed as a binary message, no base64).
  await writeFile(out, image.bytes);
  await client.document.close({ documentId: doc.id });
  console.log(`${name} → ${out} (${image.width}×${image.height})`);
});
