// The editor process's JavaScript as one file: `dist/hosts/isolated/editor/child.js`, made from the compiled
// `dist/hosts/isolated/child.js` and everything it imports. Every editor process (one per editor, again after each
// restart) loaded some 340 modules one by one before it could take a call: the bridge's own 190, zod's 95, rxjs's.
// Node's module loader, not the code, was most of that start. The libraries that load files of their own beside
// their code (sharp's native binding, pino's worker threads, the WebAssembly of the script sandbox and of the text
// shaper, the PSD and segmentation libraries) stay outside the bundle and load as before.
//
// The bundle sits as deep under the repository as the modules it is made of (`dist/hosts/<folder>/<file>`, one
// level more), so a path a module takes relative to its own place (`../../../../models/…`) still lands in the same
// folder. The bridge starts the bundle when it is there and the compiled `child.js` otherwise: where the bundler
// cannot run (it is a development dependency with a native part per platform), no bundle is left behind, one line
// says so, and editors start from the compiled modules as before.
import { rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const output = join(root, "dist/hosts/isolated/editor/child.js");

/** Packages left to Node's loader: each loads native code, WebAssembly, workers or data files from its own folder. */
const OUTSIDE = ["sharp", "pino", "ag-psd", "harfbuzzjs", "@techstark/opencv-js", "quickjs-emscripten-core", "@jitl/quickjs-wasmfile-release-sync", "onnxruntime-node"];

const outside = (id) => id.startsWith("node:") || OUTSIDE.some((name) => id === name || id.startsWith(`${name}/`));

// A bundle of an older build must never outlive a failed one.
rmSync(dirname(output), { recursive: true, force: true });
try {
  const { rolldown } = await import("rolldown");
  const bundle = await rolldown({ input: join(root, "dist/hosts/isolated/child.js"), platform: "node", external: outside, logLevel: "warn" });
  try {
    // One file: what the editor loads lazily (a dynamic import) is in it too, still evaluated only when first used.
    await bundle.write({ file: output, format: "esm", codeSplitting: false });
  } finally {
    await bundle.close();
  }
} catch (error) {
  rmSync(dirname(output), { recursive: true, force: true });
  process.stdout.write(`image-editor-bridge: no editor process bundle (${error instanceof Error ? error.message.split("\n")[0] : String(error)}); editors start from the compiled modules\n`);
}
