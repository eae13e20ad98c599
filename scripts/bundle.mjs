// The two programs that start most often, each as one file: an editor process (one per editor, again after each
// restart) and the command line's bridge (`serve`, `mcp`: every service start, every child-process bridge of the
// tests). Each loaded a few hundred modules one by one before it could do anything (the bridge's own, zod's, rxjs's,
// h3's); Node's module loader, not the code, was most of that start.
//
//   - `dist/hosts/isolated/editor/child.js` from the compiled `dist/hosts/isolated/child.js`;
//   - `dist/cli/serve-bundle.js` from the compiled `dist/cli/serve.js`.
//
// What each bundle leaves to Node's loader: the libraries that load files of their own beside their code (sharp's
// native binding, pino's worker threads, the WebAssembly of the script sandbox and of the text shaper, the PSD and
// segmentation libraries); and, in the bridge's, zod, which plugins share with the bridge (a schema a plugin makes
// with it keeps its descriptions in zod's registry, which the bridge reads for the published contract). A module
// finds the package's own files from the package's folder, not from its own place (src/package-root.ts), so a
// bundle may sit anywhere under it.
//
// Each is used when it is there and its compiled entry otherwise: where the bundler cannot run (it is a development
// dependency with a native part per platform), no bundle is left behind, one line says so, and both start from the
// compiled modules.
import { rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");

/** Packages left to Node's loader: each loads native code, WebAssembly, workers or data files from its own folder. */
const LOADS_FILES = ["sharp", "pino", "ag-psd", "harfbuzzjs", "@techstark/opencv-js", "quickjs-emscripten-core", "@jitl/quickjs-wasmfile-release-sync", "onnxruntime-node"];

const BUNDLES = [
  { input: "dist/hosts/isolated/child.js", output: "dist/hosts/isolated/editor/child.js", outside: LOADS_FILES },
  { input: "dist/cli/serve.js", output: "dist/cli/serve-bundle.js", outside: [...LOADS_FILES, "zod"] },
];

// A bundle of an older build must never outlive a failed one.
for (const bundle of BUNDLES) rmSync(join(root, bundle.output), { force: true });
try {
  const { rolldown } = await import("rolldown");
  for (const { input, output, outside } of BUNDLES) {
    const external = (id) => id.startsWith("node:") || outside.some((name) => id === name || id.startsWith(`${name}/`));
    const bundle = await rolldown({ input: join(root, input), platform: "node", external, logLevel: "warn" });
    try {
      // One file: what a program loads lazily (a dynamic import) is in it too, still evaluated only when first used.
      await bundle.write({ file: join(root, output), format: "esm", codeSplitting: false });
    } finally {
      await bundle.close();
    }
  }
} catch (error) {
  for (const bundle of BUNDLES) rmSync(join(root, bundle.output), { force: true });
  process.stdout.write(`image-editor-bridge: no bundles (${error instanceof Error ? error.message.split("\n")[0] : String(error)}); the editor process and the command line start from the compiled modules\n`);
}
