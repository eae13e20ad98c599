#!/usr/bin/env node
// Removes the background of every photo of a folder and writes each cutout as a transparent PNG. The embedded
// editor finds subjects on plain backgrounds (product shots); a photo it cannot separate is reported and skipped.
//
//   node examples/recipes/remove-backgrounds.mjs <photo-folder> <png-folder> [--url http://127.0.0.1:7700]
import { readdir, writeFile } from "node:fs/promises";
import { basename, extname, join } from "node:path";
import { connect, forEachFile, inAndOutFolders, parseArgs } from "./_connect.mjs";

const PHOTOS = [".png", ".jpg", ".jpeg", ".webp"];
const { url, rest } = parseArgs(process.argv.slice(2));
const [from, to] = await inAndOutFolders(rest, "remove-backgrounds.mjs <photo-folder> <png-folder> [--url <bridge>]");
const client = await connect(url);
const photos = (await readdir(from)).filter((n) => PHOTOS.includes(extname(n).toLowerCase()) && !n.includes(".mask.")).sort();
await forEachFile(client, photos, async (name) => {
  const doc = await client.document.open({ path: join(from, name) });
  const found = await client.action.removeBackground({ documentId: doc.id });
  if (found) {
    const image = await client.image.exportDocument({ documentId: doc.id, format: "png" });
    const out = join(to, `${basename(name, extname(name))}.png`);
    await writeFile(out, image.bytes);
    console.log(`${name} → ${out}`);
  } else {
    console.log(`${name}: no subject found, skipped`);
  }
  await client.document.close({ documentId: doc.id });
});
