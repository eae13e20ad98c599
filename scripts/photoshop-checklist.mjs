#!/usr/bin/env node
// Runs each of the bridge's Photoshop operations once against a real Photoshop (Remote Connections) and prints a
// table: what works, and the answers to what the tests could only model (docs/photoshop.md, "Checklist").
// It works in two scratch documents it creates and closes; your own documents are only read (listed, and their
// layer trees read both ways).
//
//   npm run -s build
//   BRIDGE_PHOTOSHOP_PASSWORD='…' node scripts/photoshop-checklist.mjs [--host 127.0.0.1] [--port 49494] [--remote]
//
// --remote: Photoshop runs on another machine, so the file checks (place, save, open) are skipped.
// --json: print the rows as JSON instead of a table.
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import sharp from "sharp";

const dist = new URL("../dist/", import.meta.url);
const { RemoteLink } = await import(new URL("hosts/photoshop/remote-link.js", dist).href);
const { buildScript, operationRunner } = await import(new URL("hosts/photoshop/operations.js", dist).href);
const { resolvePhotoshopLimits } = await import(new URL("hosts/photoshop/limits.js", dist).href);
const { silentLogger } = await import(new URL("logger.js", dist).href);
const { resolveEffects } = await import(new URL("methods/_internal/effects.js", dist).href);

const { values } = parseArgs({
  options: {
    host: { type: "string", default: process.env.BRIDGE_PHOTOSHOP_HOST ?? "127.0.0.1" },
    port: { type: "string", default: process.env.BRIDGE_PHOTOSHOP_PORT ?? "49494" },
    remote: { type: "boolean", default: false },
    json: { type: "boolean", default: false },
  },
});
const password = process.env.BRIDGE_PHOTOSHOP_PASSWORD ?? "";
/** Each call's deadline: Select Subject and Remove Background can take a while on a big image. */
const CALL_MS = 60_000;

const link = new RemoteLink({ host: values.host, port: Number(values.port), password, limits: resolvePhotoshopLimits({}), log: silentLogger() });
const run = operationRunner(link);
const call = (op, params = {}) => run(AbortSignal.timeout(CALL_MS), op, params);
const evaluate = (script) => link.evaluate(script, AbortSignal.timeout(CALL_MS));

const rows = [];
/** Runs one check; `fn` answers a note, or throws. A note starting with "FAIL" marks the row failed. */
async function check(name, fn) {
  const started = Date.now();
  try {
    const note = String((await fn()) ?? "");
    rows.push({ check: name, ok: note.startsWith("FAIL") ? "FAIL" : "ok", ms: Date.now() - started, note });
  } catch (error) {
    rows.push({ check: name, ok: "FAIL", ms: Date.now() - started, note: `${error?.code ?? ""} ${error?.message ?? error}`.trim() });
  }
}
const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);
const expectEqual = (label, actual, expected) => (same(actual, expected) ? `${label} ${JSON.stringify(actual)}` : `FAIL ${label} ${JSON.stringify(actual)}, expected ${JSON.stringify(expected)}`);

/** Every layer of a tree, depth first, as JSON text. */
const flatten = (layers) => layers.flatMap((l) => [JSON.stringify({ ...l, children: undefined }), ...flatten(l.children ?? [])]);

/** document.tree's envelope for one document, read by ActionManager (default) or by the DOM walk, and its time. */
async function tree(documentId, layerTree) {
  const started = Date.now();
  const envelope = JSON.parse(await evaluate(buildScript("document.tree", { documentId, ...(layerTree ? { layerTree } : {}) })));
  if (!envelope.ok) throw Object.assign(new Error(envelope.error?.message ?? "document.tree failed"), { code: envelope.error?.code });
  return { ...envelope, ms: Date.now() - started };
}

/** The point at t = 0.5 of each cubic segment of `d`, with its chord's midpoint. */
function segments(d) {
  const out = [];
  const tokens = d.trim().split(/\s+(?=[MCZ])/);
  let at;
  for (const token of tokens) {
    const n = token.slice(1).trim().split(/\s+/).map(Number);
    if (token[0] === "M") at = n;
    if (token[0] === "C") {
      const [x1, y1, x2, y2, x, y] = n;
      const mid = [(at[0] + 3 * x1 + 3 * x2 + x) / 8, (at[1] + 3 * y1 + 3 * y2 + y) / 8];
      out.push({ mid, chord: [(at[0] + x) / 2, (at[1] + y) / 2] });
      at = [x, y];
    }
  }
  return out;
}

const dir = await mkdtemp(join(tmpdir(), "photoshop-checklist-"));
const switches = [];
const docs = [];
try {
  await check("connect, app.info", async () => `Photoshop ${await link.open()}`);
  const subscription = link.event("currentDocumentChanged").subscribe((data) => switches.push(data));

  await check("ruler units are the user's again after an operation (D2)", async () => {
    const before = await evaluate("String(app.preferences.rulerUnits)");
    await call("app.info");
    const after = await evaluate("String(app.preferences.rulerUnits)");
    return expectEqual("rulerUnits", after, before);
  });
  await check("document.create (two scratch documents)", async () => {
    docs.push(await call("document.create", { name: "bridge-checklist-1", width: 400, height: 300, background: "#ffffff" }));
    docs.push(await call("document.create", { name: "bridge-checklist-2", width: 200, height: 100, background: "transparent" }));
    return docs.map((d) => `${d.id} ${d.width}×${d.height}`).join(", ");
  });
  const [first, second] = docs;
  await check("layer tree: the ActionManager read equals the DOM walk, with and without a Background layer (D12)", async () => {
    // A group holding a hidden layer and a nested group in both scratch documents; every open document is compared.
    await evaluate(`(function () {
      var keep = app.activeDocument;
      for (var i = 0; i < app.documents.length; i++) {
        var d = app.documents[i];
        if (d.id !== ${first.id} && d.id !== ${second.id}) continue;
        app.activeDocument = d;
        var outer = d.layerSets.add(); outer.name = "checklist group";
        var hidden = outer.artLayers.add(); hidden.name = "checklist hidden"; hidden.visible = false;
        var inner = outer.layerSets.add(); inner.name = "checklist inner";
        inner.artLayers.add().name = "checklist nested";
      }
      app.activeDocument = keep;
    })()`);
    const all = await call("document.list");
    let slowest;
    for (const doc of all) {
      const [am, dom] = [await tree(doc.id), await tree(doc.id, "dom")];
      if (am.notes) return `FAIL ${doc.name}: ${am.notes.join("; ")}`;
      const [a, b] = [flatten(am.result.layers), flatten(dom.result.layers)];
      const at = a.findIndex((layer, i) => layer !== b[i]);
      if (at >= 0 || a.length !== b.length) return `FAIL ${doc.name}: layer ${at} reads ${a[at]} by ActionManager, ${b[at]} by the DOM`;
      if (!slowest || dom.ms > slowest.dom) slowest = { name: doc.name, layers: a.length, am: am.ms, dom: dom.ms };
    }
    return `${all.length} documents read the same both ways; ${slowest.name} (${slowest.layers} layers): ActionManager ${slowest.am} ms, DOM ${slowest.dom} ms`;
  });
  await check("reads do not switch documents (D5)", async () => {
    await new Promise((resolve) => setTimeout(resolve, 500));
    switches.length = 0;
    await call("document.list");
    await call("document.get", { documentId: first.id });
    await call("document.tree", { documentId: first.id });
    await call("selection.get", { documentId: first.id });
    await new Promise((resolve) => setTimeout(resolve, 500));
    const active = await evaluate("String(app.activeDocument.id)");
    if (active !== String(second.id)) return `FAIL the active document became ${active}`;
    return switches.length === 0 ? "no currentDocumentChanged" : `FAIL ${switches.length} currentDocumentChanged events`;
  });
  await check("document.tree, layer.get, layer.active, layer.select", async () => {
    const tree = await call("document.tree", { documentId: first.id });
    const layer = tree.layers[0];
    await call("layer.get", { documentId: first.id, layerId: layer.id });
    await call("layer.select", { documentId: first.id, ids: [layer.id] });
    const active = await call("layer.active", { documentId: first.id });
    return expectEqual("active", active.layers.map((l) => l.id), [layer.id]);
  });

  let placed;
  if (!values.remote) {
    await check("layer.place: a PNG with transparent margins lands at x, y (D6)", async () => {
      const png = join(dir, "margins.png");
      await sharp({ create: { width: 40, height: 30, channels: 4, background: { r: 0, g: 0, b: 0, alpha: 0 } } })
        .composite([{ input: { create: { width: 10, height: 6, channels: 4, background: "#ff0000" } }, left: 12, top: 8 }])
        .png()
        .toFile(png);
      placed = await call("layer.place", { documentId: first.id, path: png, name: "placed", x: 100, y: 50, aboveLayerId: null });
      const layer = await call("layer.get", { documentId: first.id, layerId: placed });
      return expectEqual("bounds", layer.bounds, { left: 112, top: 58, right: 122, bottom: 64 });
    });
    await check("pixmaps: layer colours, and hidden layers left out of the document (D3, D12 channel order)", async () => {
      const pixel = async (request, x, y) => {
        const { pixmap } = await link.pixmap(request, AbortSignal.timeout(CALL_MS));
        const at = (y * pixmap.width + x) * 4;
        return [...pixmap.rgba.subarray(at, at + 4)];
      };
      const shown = await pixel({ documentId: first.id, scale: 1, maxDimension: 8192 }, 115, 60);
      await evaluate(`(function () { var d = app.activeDocument; for (var i = 0; i < app.documents.length; i++) if (app.documents[i].id === ${first.id}) d = app.documents[i]; app.activeDocument = d; d.layers[0].visible = false; })()`);
      const hidden = await pixel({ documentId: first.id, scale: 1, maxDimension: 8192 }, 115, 60);
      await evaluate(`app.activeDocument.layers[0].visible = true`);
      const verdict = same(shown, [255, 0, 0, 255]) && same(hidden, [255, 255, 255, 255]);
      return `${verdict ? "" : "FAIL "}shown ${JSON.stringify(shown)} (red expected), hidden ${JSON.stringify(hidden)} (white expected)`;
    });
  }

  await check("selection.set rect, selection.get in pixels (D2)", async () => {
    const rect = await call("selection.set", { documentId: first.id, shape: { kind: "rect", rect: { x: 10, y: 20, width: 30, height: 40 } } });
    return expectEqual("selection", [rect, await call("selection.get", { documentId: first.id })], [{ x: 10, y: 20, width: 30, height: 40 }, { x: 10, y: 20, width: 30, height: 40 }]);
  });
  await check("selection.path outlines the selection (D1, D7)", async () => {
    const path = await call("selection.path", { documentId: first.id, expand: 0 });
    if (!path) return "FAIL null";
    const again = await call("selection.get", { documentId: first.id });
    return `${same(path.box, { x: 10, y: 20, width: 30, height: 40 }) && same(again, path.box) ? "" : "FAIL "}box ${JSON.stringify(path.box)}, d ${path.d.slice(0, 60)}…`;
  });
  await check("selection.path grows past 500 px (D12)", async () => {
    const path = await call("selection.path", { documentId: first.id, expand: 600 });
    return path ? `box ${JSON.stringify(path.box)}` : "FAIL null";
  });
  await check("curve handles bulge outwards on an ellipse (D8)", async () => {
    await call("selection.set", { documentId: first.id, shape: { kind: "ellipse", rect: { x: 100, y: 100, width: 160, height: 100 } } });
    const path = await call("selection.path", { documentId: first.id, expand: 0 });
    const centre = [180, 150];
    const dist = ([x, y]) => Math.hypot(x - centre[0], y - centre[1]);
    const parts = segments(path.d);
    const curved = parts.filter((s) => Math.abs(dist(s.mid) - dist(s.chord)) > 0.01);
    if (curved.length === 0) return `FAIL no curved segment to judge (${parts.length} straight ones)`;
    const outward = curved.filter((s) => dist(s.mid) > dist(s.chord)).length;
    return outward === curved.length ? `all ${curved.length} curved segments bulge outwards: handles read in Photoshop's order` : `FAIL ${curved.length - outward} of ${curved.length} segments bulge inwards: left/right directions are swapped`;
  });
  await check("selection.set polygon (clipped by Photoshop)", async () =>
    JSON.stringify(await call("selection.set", { documentId: first.id, shape: { kind: "polygon", points: [{ x: -10, y: 10 }, { x: 150, y: 10 }, { x: 80, y: 130 }] } })),
  );
  if (placed !== undefined) {
    await check("action.autoCutout on a hidden layer keeps it hidden (D12)", async () => {
      await evaluate("app.activeDocument.layers[0].visible = false");
      const found = await call("action.autoCutout", { documentId: first.id, layerId: placed });
      const visible = (await call("layer.get", { documentId: first.id, layerId: placed })).visible;
      await evaluate("app.activeDocument.layers[0].visible = true");
      return `${visible ? "FAIL shown; " : ""}subject found: ${found}`;
    });
    await check("action.removeBackground", async () => String(await call("action.removeBackground", { documentId: first.id, layerId: placed })));
  }
  // The edit operations, each in a scratch document of its own (a fresh History panel: Photoshop keeps 50 states).
  // Every edit must add exactly one history state, named after its method.
  const scratch = async (name, background = "#ffffff") => {
    const doc = await call("document.create", { name, width: 200, height: 150, background });
    docs.push(doc);
    return doc.id;
  };
  const history = async (documentId) =>
    JSON.parse(
      await evaluate(`(function () { for (var i = 0; i < app.documents.length; i++) { var d = app.documents[i]; if (d.id === ${documentId}) return '{"count":' + d.historyStates.length + ',"name":"' + String(d.activeHistoryState.name).replace(/["\\\\]/g, "") + '"}'; } return "null"; })()`),
    );
  /** Runs one edit and checks its history state; answers what the script answered. */
  const edit = async (documentId, op, e) => {
    const before = await history(documentId);
    const result = await call(op, { documentId, edit: e, history: e.op });
    const after = await history(documentId);
    if (after.count !== before.count + 1 || after.name !== e.op) {
      throw new Error(`${e.op} made ${after.count - before.count} history states, the last named "${after.name}"`);
    }
    return result;
  };
  const layerOf = async (documentId, id) => call("layer.get", { documentId, layerId: id });
  const rectOf = async (documentId, id) => (await layerOf(documentId, id)).rect;
  const box = (x, y, width, height) => ({ x, y, width, height });
  const fails = (list) => (list.length === 0 ? "" : `FAIL ${list.join("; ")}; `);
  const expectSame = (problems, label, actual, expected) => {
    if (!same(actual, expected)) problems.push(`${label} ${JSON.stringify(actual)}, expected ${JSON.stringify(expected)}`);
  };

  await check("edit.layer: create, update, duplicate, move, group, ungroup, merge, rasterize, fill, clear, delete; one history state each (E1)", async () => {
    const id = await scratch("bridge-checklist-layers");
    const problems = [];
    const { layerId: red } = await edit(id, "edit.layer", { op: "layer:create", kind: "pixel", name: "red", fillColor: [255, 0, 0, 255], place: { to: "top" } });
    expectSame(problems, "filled layer", await rectOf(id, red), box(0, 0, 200, 150));
    await edit(id, "edit.layer", { op: "layer:update", layerId: red, opacity: 50, blendMode: "linear burn", fillOpacity: 40, locked: true });
    const updated = await layerOf(id, red);
    expectSame(problems, "updated", [updated.opacity, updated.blendMode, updated.fillOpacity, updated.locked], [50, "linear burn", 40, true]);
    await edit(id, "edit.layer", { op: "layer:update", layerId: red, locked: false });
    const { layerId: copy } = await edit(id, "edit.layer", { op: "layer:duplicate", layerId: red, name: "red copy", place: { above: red } });
    await edit(id, "edit.layer", { op: "layer:move", layerId: copy, place: { to: "bottom" } });
    const { layerId: group } = await edit(id, "edit.layer", { op: "layer:group", layerIds: [red, copy], name: "checklist group" });
    const grouped = await call("document.tree", { documentId: id });
    expectSame(problems, "grouped", grouped.layers.map((l) => [l.name, (l.children ?? []).map((c) => c.name)]), [["checklist group", ["red", "red copy"]], ["Background", []]]);
    await edit(id, "edit.layer", { op: "layer:ungroup", layerId: group });
    const { layerId: merged } = await edit(id, "edit.layer", { op: "layer:merge", layerIds: [red, copy], name: "merged" });
    await call("selection.set", { documentId: id, shape: { kind: "rect", rect: box(0, 0, 200, 50) } });
    await edit(id, "edit.layer", { op: "layer:clear", layerId: merged });
    expectSame(problems, "cleared", await rectOf(id, merged), box(0, 50, 200, 100));
    await edit(id, "edit.layer", { op: "layer:fill", layerId: merged, color: [0, 0, 255, 255], opacity: 100, blendMode: "normal" });
    expectSame(problems, "filled back", await rectOf(id, merged), box(0, 0, 200, 150));
    // A pixel layer has nothing to rasterize: no history state is expected.
    await call("edit.layer", { documentId: id, edit: { op: "layer:rasterize", layerId: merged }, history: "layer:rasterize" });
    await edit(id, "edit.layer", { op: "layer:delete", layerId: merged });
    const left = await call("document.tree", { documentId: id });
    expectSame(problems, "left", left.layers.map((l) => l.name), ["Background"]);
    return `${fails(problems)}10 edits, one named history state each`;
  });
  await check("edit.transform: Free Transform turns clockwise, mirrors before turning, about the anchor (E2)", async () => {
    const id = await scratch("bridge-checklist-transform");
    const { layerId } = await edit(id, "edit.layer", { op: "layer:create", kind: "pixel", name: "bar", place: { to: "top" } });
    await call("selection.set", { documentId: id, shape: { kind: "rect", rect: box(60, 40, 40, 20) } });
    await edit(id, "edit.layer", { op: "layer:fill", layerId, color: [0, 128, 0, 255], opacity: 100, blendMode: "normal" });
    await call("selection.set", { documentId: id, shape: null });
    const transform = (more) => edit(id, "edit.transform", { op: "layer:transform", layerId, dx: 0, dy: 0, scaleX: 100, scaleY: 100, angle: 0, flip: "none", anchor: { x: 60, y: 40 }, resample: "bicubic", ...more });
    const problems = [];
    await transform({ dx: 10, dy: 5 });
    expectSame(problems, "moved", await rectOf(id, layerId), box(70, 45, 40, 20));
    await transform({ anchor: { x: 70, y: 45 }, scaleX: 50, scaleY: 50 });
    expectSame(problems, "scaled about its top-left", await rectOf(id, layerId), box(70, 45, 20, 10));
    // Clockwise about the top-left corner: the bar hangs down to the left of it.
    await transform({ anchor: { x: 70, y: 45 }, angle: 90 });
    expectSame(problems, "turned 90° clockwise", await rectOf(id, layerId), box(60, 45, 10, 20));
    // Turned, then mirrored about the anchor's vertical: back to the right of it.
    await transform({ anchor: { x: 70, y: 45 }, angle: 90, flip: "horizontal" });
    expectSame(problems, "turned, then mirrored", await rectOf(id, layerId), box(70, 35, 20, 10));
    return `${fails(problems)}4 transforms`;
  });
  await check("edit.mask: masks made, set, read back, deleted and applied through the ActionManager (E3)", async () => {
    const id = await scratch("bridge-checklist-mask");
    const { layerId } = await edit(id, "edit.layer", { op: "layer:create", kind: "pixel", name: "masked", fillColor: [255, 0, 0, 255], place: { to: "top" } });
    const problems = [];
    await call("selection.set", { documentId: id, shape: { kind: "rect", rect: box(20, 30, 50, 40) } });
    await edit(id, "edit.mask", { op: "layer:addMask", layerId, from: "selection" });
    const masked = await layerOf(id, layerId);
    expectSame(problems, "mask", masked.mask, { enabled: true, linked: true, density: 100, feather: 0 });
    expectSame(problems, "bounds with the mask", masked.rect, box(20, 30, 50, 40));
    await edit(id, "edit.mask", { op: "layer:updateMask", layerId, enabled: false, linked: false, density: 60, feather: 2.5 });
    expectSame(problems, "mask set", (await layerOf(id, layerId)).mask, { enabled: false, linked: false, density: 60, feather: 2.5 });
    await edit(id, "edit.mask", { op: "layer:deleteMask", layerId });
    expectSame(problems, "mask deleted", [(await layerOf(id, layerId)).mask, await rectOf(id, layerId)], [undefined, box(0, 0, 200, 150)]);
    await call("selection.set", { documentId: id, shape: { kind: "rect", rect: box(0, 0, 100, 150) } });
    await edit(id, "edit.mask", { op: "layer:addMask", layerId, from: "selection" });
    await edit(id, "edit.mask", { op: "layer:applyMask", layerId });
    expectSame(problems, "mask applied", [(await layerOf(id, layerId)).mask, await rectOf(id, layerId)], [undefined, box(0, 0, 100, 150)]);
    return `${fails(problems)}mask read back as ${JSON.stringify(masked.mask)}`;
  });
  await check("edit.document: resize, canvas (how a centred odd difference rounds), crop, rotate, flip, trim, flatten, duplicate (E4)", async () => {
    const id = await scratch("bridge-checklist-document");
    const problems = [];
    const { layerId } = await edit(id, "edit.layer", { op: "layer:create", kind: "pixel", name: "block", place: { to: "top" } });
    await call("selection.set", { documentId: id, shape: { kind: "rect", rect: box(20, 30, 40, 20) } });
    await edit(id, "edit.layer", { op: "layer:fill", layerId, color: [0, 0, 0, 255], opacity: 100, blendMode: "normal" });
    await call("selection.set", { documentId: id, shape: null });
    const size = async () => {
      const d = await call("document.get", { documentId: id });
      return [d.width, d.height];
    };
    await edit(id, "edit.document", { op: "document:resize", width: 100, height: 75, resolution: 144, resample: "bicubic" });
    expectSame(problems, "resized", [await size(), await rectOf(id, layerId)], [[100, 75], box(10, 15, 20, 10)]);
    await edit(id, "edit.document", { op: "document:resizeCanvas", width: 121, height: 75, offsetX: 11, offsetY: 0, fillColor: [255, 255, 255, 255] });
    const odd = (await rectOf(id, layerId)).x - 10;
    await edit(id, "edit.document", { op: "document:crop", rect: box(odd, 0, 100, 75) });
    expectSame(problems, "cropped", [await size(), await rectOf(id, layerId)], [[100, 75], box(10, 15, 20, 10)]);
    await edit(id, "edit.document", { op: "document:rotate", angle: 90 });
    expectSame(problems, "turned", [await size(), await rectOf(id, layerId)], [[75, 100], box(50, 10, 10, 20)]);
    await edit(id, "edit.document", { op: "document:flip", direction: "both" });
    expectSame(problems, "flipped", await rectOf(id, layerId), box(15, 70, 10, 20));
    const { documentId: copy } = await call("edit.document", { documentId: id, edit: { op: "document:duplicate", name: "bridge-checklist-copy" }, history: "document:duplicate" });
    docs.push({ id: copy });
    await edit(id, "edit.layer", { op: "layer:update", layerId: (await call("document.tree", { documentId: id })).layers.at(-1).id, visible: false });
    await edit(id, "edit.document", { op: "document:trim" });
    expectSame(problems, "trimmed", await size(), [10, 20]);
    await edit(id, "edit.document", { op: "document:flatten" });
    expectSame(problems, "flattened", (await call("document.tree", { documentId: id })).layers.map((l) => l.kind), ["background"]);
    return `${fails(problems)}a centred odd difference of 21 px put the image ${odd} px in (the bridge asks for 11)`;
  });
  await check("edit.text: a text layer made and changed through TextItem reads back as set; where the glyphs went (E6)", async () => {
    const id = await scratch("bridge-checklist-text");
    const problems = [];
    const { fonts } = await call("font.list", {});
    const font = fonts.find((f) => /^(ArialMT|Arial-BoldMT|MyriadPro-Regular|DejaVuSans)$/.test(f.postScriptName)) ?? fonts[0];
    if (font === undefined) return "FAIL app.fonts is empty";
    const spec = { text: "Bridge\ntext", font: font.postScriptName, size: 24, color: [192, 0, 0, 255], position: { x: 100, y: 60 }, alignment: "center", tracking: 0, antiAlias: "smooth" };
    const { layerId } = await edit(id, "edit.layer", { op: "layer:create", kind: "text", name: "text", text: spec, place: { to: "top" } });
    const made = await layerOf(id, layerId);
    expectSame(problems, "made", made.text, { text: "Bridge\ntext", font: font.postScriptName, size: 24, color: "#c00000", alignment: "center", tracking: 0, antiAlias: "smooth", direction: "ltr", position: { x: 100, y: 60 } });
    const box = { x: 10, y: 20, width: 150, height: 80 };
    await edit(id, "edit.layer", { op: "layer:updateText", layerId, text: { ...spec, position: undefined, box, leading: 30, alignment: "left" } });
    const changed = await layerOf(id, layerId);
    expectSame(problems, "changed", [changed.text.box, changed.text.leading, changed.text.alignment], [box, 30, "left"]);
    return `${fails(problems)}${font.postScriptName} 24 pt centred on 100, 60: bounds ${JSON.stringify(made.rect)} (${fonts.length} fonts)`;
  });
  await check("edit.selection: all, clear, invert, modify (border centred on the edge), a layer's transparency, the magic wand (E5)", async () => {
    const id = await scratch("bridge-checklist-selection");
    const problems = [];
    const area = () => call("selection.get", { documentId: id });
    const sel = (e) => edit(id, "edit.selection", e);
    await sel({ op: "selection:all" });
    expectSame(problems, "all", await area(), box(0, 0, 200, 150));
    await sel({ op: "selection:clear" });
    expectSame(problems, "clear", await area(), null);
    await sel({ op: "selection:invert" });
    expectSame(problems, "invert of nothing", await area(), box(0, 0, 200, 150));
    await call("selection.set", { documentId: id, shape: { kind: "rect", rect: box(50, 50, 40, 40) } });
    await sel({ op: "selection:modify", how: "expand", pixels: 10 });
    expectSame(problems, "expand", await area(), box(40, 40, 60, 60));
    await sel({ op: "selection:modify", how: "contract", pixels: 10 });
    await sel({ op: "selection:modify", how: "smooth", pixels: 2 });
    await sel({ op: "selection:modify", how: "feather", pixels: 1.5 });
    await call("selection.set", { documentId: id, shape: { kind: "rect", rect: box(50, 50, 40, 40) } });
    await sel({ op: "selection:modify", how: "border", pixels: 8 });
    const border = await area();
    const { layerId } = await edit(id, "edit.layer", { op: "layer:create", kind: "pixel", name: "spot", place: { to: "top" } });
    await call("selection.set", { documentId: id, shape: { kind: "rect", rect: box(10, 20, 30, 40) } });
    await edit(id, "edit.layer", { op: "layer:fill", layerId, color: [255, 0, 0, 255], opacity: 100, blendMode: "normal" });
    await sel({ op: "selection:clear" });
    await sel({ op: "selection:fromLayer", layerId, mode: "replace" });
    expectSame(problems, "transparency", await area(), box(10, 20, 30, 40));
    await sel({ op: "selection:fromLayer", layerId, mode: "subtract" });
    expectSame(problems, "transparency subtracted", await area(), null);
    await sel({ op: "selection:fromColor", point: { x: 15, y: 25 }, tolerance: 0, contiguous: true, sampleMerged: false, layerId, mode: "replace" });
    expectSame(problems, "magic wand on the layer", await area(), box(10, 20, 30, 40));
    await sel({ op: "selection:fromColor", point: { x: 150, y: 100 }, tolerance: 0, contiguous: false, sampleMerged: true, mode: "add" });
    expectSame(problems, "magic wand on the image, added", await area(), box(0, 0, 200, 150));
    return `${fails(problems)}border of 8 px around 50,50 40×40: ${JSON.stringify(border)} (centred on the edge: 46,46 48×48)`;
  });
  // The adjustments and filters without an ArtLayer method are ActionManager events written from ScriptListener
  // recordings: a real Photoshop says whether it takes each descriptor as the bridge writes it.
  await check("edit.filter: every DOM adjustment and filter and every ActionManager adjustment and filter event the bridge uses, one history state each; what DOM Brightness/Contrast does to grey 100 (E7)", async () => {
    const id = await scratch("bridge-checklist-filters");
    const { layerId } = await edit(id, "edit.layer", { op: "layer:create", kind: "pixel", name: "grey", fillColor: [100, 100, 100, 255], place: { to: "top" } });
    const level = async () => {
      const { pixmap } = await link.pixmap({ documentId: id, scale: 1, maxDimension: 8192 }, AbortSignal.timeout(CALL_MS));
      return pixmap.rgba[(75 * pixmap.width + 100) * 4];
    };
    const adjust = (adjustment) => edit(id, "edit.filter", { op: "layer:adjust", layerId, adjustment });
    const filter = (f) => edit(id, "edit.filter", { op: "filter:apply", layerId, filter: f });
    // Brightness +50 alone: Use Legacy adds 50 (150); the current Brightness/Contrast maps 100 along a curve.
    await adjust({ type: "brightnessContrast", brightness: 50, contrast: 0, legacy: false });
    const bright = await level();
    const identity = { inputBlack: 0, inputWhite: 255, gamma: 1, outputBlack: 0, outputWhite: 255 };
    const line = [{ input: 0, output: 0 }, { input: 255, output: 255 }];
    const none = { cyan: 0, magenta: 0, yellow: 0, black: 0 };
    const flat = { cyanRed: 0, magentaGreen: 0, yellowBlue: 0 };
    await adjust({ type: "levels", rgb: identity, red: identity, green: null, blue: null });
    await adjust({ type: "curves", rgb: line, red: null, green: line, blue: null });
    await adjust({ type: "colorBalance", shadows: flat, midtones: { ...flat, cyanRed: 10 }, highlights: flat, preserveLuminosity: true });
    await adjust({ type: "photoFilter", color: [236, 138, 0, 255], density: 25, preserveLuminosity: true });
    const row = (r, g, b) => ({ red: r, green: g, blue: b, constant: 0 });
    await adjust({ type: "channelMixer", red: row(100, 0, 0), green: row(0, 100, 0), blue: row(0, 0, 100), monochrome: false });
    await adjust({ type: "invert" });
    await adjust({ type: "posterize", levels: 8 });
    await adjust({ type: "threshold", level: 128 });
    const classes = Object.fromEntries(["reds", "yellows", "greens", "cyans", "blues", "magentas", "whites", "neutrals", "blacks"].map((c) => [c, none]));
    await adjust({ type: "selectiveColor", mode: "relative", ...classes });
    for (const f of [
      { type: "gaussianBlur", radius: 2 },
      { type: "motionBlur", angle: 30, distance: 8 },
      { type: "unsharpMask", amount: 50, radius: 1, threshold: 0 },
      { type: "sharpen" },
      { type: "addNoise", amount: 5, distribution: "gaussian", monochromatic: true },
      { type: "median", radius: 2 },
      { type: "highPass", radius: 4 },
    ]) {
      await filter(f);
    }
    // The ActionManager ones: Exposure, Hue/Saturation (ranges, then colorize), Vibrance, Black & White, Gradient Map;
    // Box Blur, Mosaic, Emboss.
    const hueRanges = { reds: { hue: 0, saturation: 0, lightness: 10, bounds: null }, yellows: null, greens: null, cyans: null, blues: null, magentas: null };
    await adjust({ type: "exposure", exposure: 0.5, offset: 0, gamma: 1 });
    await adjust({ type: "hueSaturation", hue: 30, saturation: -20, lightness: 0, ranges: hueRanges, colorize: null });
    await adjust({ type: "hueSaturation", hue: 0, saturation: 0, lightness: 0, ranges: { ...hueRanges, reds: null }, colorize: { hue: 200, saturation: 40, lightness: 0 } });
    await adjust({ type: "vibrance", vibrance: 30, saturation: 0 });
    await adjust({ type: "blackAndWhite", reds: 40, yellows: 60, greens: 40, cyans: 60, blues: 20, magentas: 80, tint: [224, 192, 128, 255] });
    await adjust({ type: "gradientMap", stops: [{ location: 0, color: [0, 32, 96, 255] }, { location: 100, color: [255, 208, 128, 255] }], reverse: false });
    await filter({ type: "boxBlur", radius: 3 });
    await filter({ type: "pixelate", size: 10 });
    await filter({ type: "emboss", azimuth: 135, elevation: 45, depth: 3 });
    return `brightness +50 made grey 100 read ${bright} (Use Legacy gives 150: if it reads 150, the DOM call is the legacy one and layer:adjust's legacy: false is not what Photoshop ran); 10 DOM adjustments, 7 DOM filters, 6 adjustment and 3 filter events, one state each`;
  });
  // Fill and adjustment layers are ActionManager `make` / `set` descriptors written from Adobe's key names: a real
  // Photoshop says whether it takes them and reads back the same settings from the layer's `adjustment` list.
  await check("edit.layer: solid, gradient (every interpolation) and pattern fill layers and each adjustment layer type (and a colorized Hue/Saturation) made, changed and read back; one history state each (E10)", async () => {
    const id = await scratch("bridge-checklist-content-layers");
    const problems = [];
    const content = async (layerId, field) => (await layerOf(id, layerId))[field];
    const { layerId: solid } = await edit(id, "edit.layer", { op: "layer:create", kind: "fill", name: "solid", fill: { type: "solid", color: [32, 80, 192, 255] }, place: { to: "top" } });
    expectSame(problems, "solid fill", await content(solid, "fill"), { type: "solid", color: "#2050c0" });
    const mask = (await layerOf(id, solid)).mask;
    if (mask !== undefined) problems.push(`the default mask stayed: ${JSON.stringify(mask)}`);
    const gradient = {
      type: "gradient", style: "radial", angle: 30, scale: 80, reverse: true, align: false, offset: { x: 10, y: -5 }, smoothness: 100, interpolation: "classic",
      stops: [{ location: 0, color: [255, 0, 0, 255], midpoint: 50 }, { location: 60, color: [0, 0, 255, 128], midpoint: 30 }],
    };
    await edit(id, "edit.layer", { op: "layer:update", layerId: solid, fill: gradient });
    const { type, style, smoothness, interpolation, angle, scale, reverse, align, offset } = gradient;
    const stops = [{ location: 0, color: "#ff0000", midpoint: 50 }, { location: 60, color: "#0000ff80", midpoint: 30 }];
    expectSame(problems, "gradient fill", await content(solid, "fill"), { type, style, stops, smoothness, interpolation, angle, scale, reverse, align, offset });
    // The interpolations after classic (Photoshop 2022 and later): gradientsInterpolationMethod.
    for (const method of ["perceptual", "linear", "smooth"]) {
      await edit(id, "edit.layer", { op: "layer:update", layerId: solid, fill: { ...gradient, interpolation: method } });
      expectSame(problems, `${method} gradient fill`, (await content(solid, "fill"))?.interpolation, method);
    }
    const ink = (cyan, magenta, yellow, black) => ({ cyan, magenta, yellow, black });
    const selective = { type: "selectiveColor", mode: "absolute", ...Object.fromEntries(["reds", "yellows", "greens", "cyans", "blues", "magentas", "whites", "neutrals", "blacks"].map((c) => [c, ink(0, 0, 0, 0)])), reds: ink(60, 0, -10, 30) };
    const adjustments = [
      [{ type: "brightnessContrast", brightness: 40, contrast: 10, legacy: false }, { type: "brightnessContrast", brightness: 40, contrast: 10, legacy: false }],
      [
        { type: "levels", rgb: { inputBlack: 10, inputWhite: 200, gamma: 1.2, outputBlack: 0, outputWhite: 255 }, red: null, green: null, blue: null },
        { type: "levels", rgb: { inputBlack: 10, inputWhite: 200, gamma: 1.2, outputBlack: 0, outputWhite: 255 }, red: null, green: null, blue: null },
      ],
      [
        { type: "curves", rgb: null, red: null, green: [{ input: 0, output: 0 }, { input: 128, output: 190 }, { input: 255, output: 255 }], blue: null },
        { type: "curves", rgb: null, red: null, green: [{ input: 0, output: 0 }, { input: 128, output: 190 }, { input: 255, output: 255 }], blue: null },
      ],
      [
        { type: "colorBalance", shadows: { cyanRed: 0, magentaGreen: 0, yellowBlue: 0 }, midtones: { cyanRed: -60, magentaGreen: 0, yellowBlue: 10 }, highlights: { cyanRed: 0, magentaGreen: 0, yellowBlue: 0 }, preserveLuminosity: false },
        { type: "colorBalance", shadows: { cyanRed: 0, magentaGreen: 0, yellowBlue: 0 }, midtones: { cyanRed: -60, magentaGreen: 0, yellowBlue: 10 }, highlights: { cyanRed: 0, magentaGreen: 0, yellowBlue: 0 }, preserveLuminosity: false },
      ],
      [
        { type: "exposure", exposure: 1, offset: 0.1, gamma: 0.8 },
        { type: "exposure", exposure: 1, offset: 0.1, gamma: 0.8 },
      ],
      [
        { type: "vibrance", vibrance: 30, saturation: 20 },
        { type: "vibrance", vibrance: 30, saturation: 20 },
      ],
      [
        { type: "channelMixer", red: { red: 20, green: 80, blue: 0, constant: 0 }, green: { red: 0, green: 100, blue: 0, constant: 0 }, blue: { red: 0, green: 0, blue: 100, constant: 0 }, monochrome: false },
        { type: "channelMixer", red: { red: 20, green: 80, blue: 0, constant: 0 }, green: { red: 0, green: 100, blue: 0, constant: 0 }, blue: { red: 0, green: 0, blue: 100, constant: 0 } },
      ],
      [
        { type: "gradientMap", stops: [{ location: 0, color: [0, 32, 96, 255] }, { location: 100, color: [255, 208, 128, 255] }], reverse: false },
        { type: "gradientMap", stops: [{ location: 0, color: "#002060" }, { location: 100, color: "#ffd080" }], reverse: false },
      ],
      [
        { type: "blackAndWhite", reds: 50, yellows: 60, greens: 40, cyans: 60, blues: 20, magentas: 80, tint: [224, 192, 128, 255] },
        { type: "blackAndWhite", reds: 50, yellows: 60, greens: 40, cyans: 60, blues: 20, magentas: 80, tint: "#e0c080" },
      ],
      [
        { type: "photoFilter", color: [0, 96, 255, 255], density: 80, preserveLuminosity: false },
        { type: "photoFilter", color: "#0060ff", density: 80, preserveLuminosity: false },
      ],
      [selective, { ...selective }],
      [{ type: "invert" }, { type: "invert" }],
      [{ type: "posterize", levels: 3 }, { type: "posterize", levels: 3 }],
      [{ type: "threshold", level: 100 }, { type: "threshold", level: 100 }],
      [
        { type: "hueSaturation", hue: 120, saturation: -20, lightness: 5, colorize: null, ranges: { reds: { hue: 0, saturation: 0, lightness: 10, bounds: null }, yellows: null, greens: null, cyans: null, blues: null, magentas: null } },
        { type: "hueSaturation", hue: 120, saturation: -20, lightness: 5, ranges: { reds: { hue: 0, saturation: 0, lightness: 10 } } },
      ],
      [
        { type: "hueSaturation", hue: 0, saturation: 0, lightness: 0, colorize: { hue: 200, saturation: 40, lightness: -10 }, ranges: { reds: null, yellows: null, greens: null, cyans: null, blues: null, magentas: null } },
        { type: "hueSaturation", colorize: { hue: 200, saturation: 40, lightness: -10 } },
      ],
    ];
    const { layerId: adjusting } = await edit(id, "edit.layer", { op: "layer:create", kind: "adjustment", name: "adjusting", adjustment: { type: "invert" }, place: { to: "top" } });
    for (const [adjustment, readBack] of adjustments) {
      const { layerId } = await edit(id, "edit.layer", { op: "layer:create", kind: "adjustment", name: adjustment.type, adjustment, place: { to: "top" } });
      expectSame(problems, `${adjustment.type} layer`, await content(layerId, "adjustment"), readBack);
      await edit(id, "edit.layer", { op: "layer:update", layerId: adjusting, adjustment });
      expectSame(problems, `invert changed to ${adjustment.type}`, await content(adjusting, "adjustment"), readBack);
    }
    // A pattern fill (this machine's PNG: not with --remote): Define Pattern from the image opened as a temporary
    // document, the layer naming the preset by name alone, the preset deleted again; one state in this document.
    let pattern = "no pattern fill (--remote)";
    if (!values.remote) {
      const png = join(dir, "pattern.png");
      await sharp({ create: { width: 4, height: 2, channels: 3, background: "#30a050" } }).png().toFile(png);
      const preset = `bridge pattern checklist-${Date.now()}`;
      const before = await history(id);
      const docs = await evaluate("String(app.documents.length)");
      const { layerId } = await call("edit.layer", { documentId: id, edit: { op: "layer:create", kind: "fill", name: "pattern", fill: { type: "pattern", name: "Pattern", preset }, place: { to: "top" } }, history: "layer:create", path: png });
      const after = await history(id);
      if (after.count !== before.count + 1 || after.name !== "layer:create") problems.push(`pattern fill: ${after.count - before.count} history states, the last "${after.name}"`);
      expectSame(problems, "temporary document closed", await evaluate("String(app.documents.length)"), docs);
      expectSame(problems, "pattern fill", await content(layerId, "fill"), { type: "pattern", name: preset });
      pattern = `a pattern fill from a 4×2 PNG read back as ${JSON.stringify(await content(layerId, "fill"))} (check in the Patterns panel that no "${preset}" is left, and that the layer still draws the tiles)`;
    }
    return `${fails(problems)}a solid fill changed to a gradient, ${adjustments.length} adjustment types made and set; ${pattern}`;
  });
  // Layer effects are `set` of the layer's layerEffects (after Clear Layer Style) and of the document's globalAngle,
  // written from the keys ScriptListener records: a real Photoshop says whether it takes them, one object per kind
  // and a Multi list for several, and reads back the same settings from the layer's `layerEffects`.
  await check("edit.effects: every effect kind, stacked lists and the global light set, read back, replaced and cleared; one history state each (E11)", async () => {
    const id = await scratch("bridge-checklist-effects");
    const problems = [];
    /** Each field `expected` names, at any depth, as `actual` has it (the read-back also has the defaults). */
    const within = (label, actual, expected) => {
      const pick = (a, e) => (e !== null && typeof e === "object" && a !== null && typeof a === "object" ? (Array.isArray(e) ? e.map((v, i) => pick(a[i], v)) : Object.fromEntries(Object.keys(e).map((k) => [k, pick(a[k], e[k])]))) : a);
      expectSame(problems, label, pick(actual, expected), expected);
    };
    const setEffects = (layerId, asked, light) => {
      const { effects, globalLight } = resolveEffects(asked, light);
      return edit(id, "edit.effects", { op: "layer:setEffects", layerId, effects, ...(globalLight ? { globalLight } : {}) });
    };
    const { layerId } = await edit(id, "edit.layer", { op: "layer:create", kind: "pixel", name: "styled", fillColor: [192, 64, 32, 255], place: { to: "top" } });
    await edit(id, "edit.layer", { op: "layer:update", layerId, fillOpacity: 40 });
    const every = {
      dropShadow: { color: "#102030", opacity: 60, distance: 6, spread: 10, size: 4, useGlobalLight: false, angle: 45 },
      innerShadow: { color: "#400000", opacity: 50, distance: 3, choke: 20, size: 2 },
      outerGlow: { color: "#ffcc00", opacity: 80, size: 8, spread: 5, technique: "precise", jitter: 10 },
      innerGlow: { color: "#00ffcc", opacity: 40, size: 3, source: "center", range: 60 },
      bevel: { style: "emboss", technique: "chiselHard", depth: 250, direction: "down", size: 6, altitude: 45, highlight: { color: "#fff0e0", opacity: 60 } },
      satin: { color: "#202020", opacity: 30, angle: 30, distance: 5, size: 7, invert: false, contour: [{ x: 0, y: 0 }, { x: 128, y: 200 }, { x: 255, y: 255 }] },
      colorOverlay: { color: "#3060a0", opacity: 70, blendMode: "multiply" },
      gradientOverlay: { opacity: 50, stops: [{ location: 0, color: "#ff0000" }, { location: 100, color: "#0000ff80" }], angle: 30, style: "radial" },
      stroke: { size: 2, position: "inside", color: "#00ff00", opacity: 90 },
    };
    await setEffects(layerId, every, { angle: 75, altitude: 40 });
    const styled = await layerOf(id, layerId);
    within("every effect", styled.effects, every);
    within("the global light", styled.effects?.innerShadow, { useGlobalLight: true, angle: 75 });
    expectSame(problems, "fill opacity kept", styled.fillOpacity, 40);
    const stacked = {
      dropShadow: [{ color: "#ff0000", distance: 8, useGlobalLight: false, angle: 0 }, { color: "#0000ff", distance: 8, useGlobalLight: false, angle: 180 }],
      // The second stroke's gradient in perceptual interpolation (Photoshop 2022 and later: gradientsInterpolationMethod).
      stroke: [{ size: 2, color: "#00ff00" }, { size: 4, gradient: { stops: [{ location: 0, color: "#ffff00" }, { location: 100, color: "#ff00ff" }], interpolation: "perceptual" } }],
    };
    await setEffects(layerId, stacked);
    const replaced = (await layerOf(id, layerId)).effects;
    within("stacked", replaced, stacked);
    expectSame(problems, "replaced whole", Object.keys(replaced ?? {}).sort(), ["dropShadow", "stroke"]);
    await setEffects(layerId, {});
    expectSame(problems, "cleared", (await layerOf(id, layerId)).effects, undefined);
    return `${fails(problems)}9 effects with the global light, 2 stacked kinds (a perceptual gradient among them), cleared: one named history state each`;
  });
  // What the history (and an atomic batch, which the bridge groups over its entries' states) relies on: a state set
  // active keeps the later ones until the next change discards them; states keep the names the bridge gave them.
  await check("edit.comps: a layer comp made, applied back, changed, recaptured and deleted; one history state each (E8)", async () => {
    const id = await scratch("bridge-checklist-comps");
    const problems = [];
    const { layerId } = await edit(id, "edit.layer", { op: "layer:create", kind: "pixel", name: "shown", fillColor: [0, 0, 255, 255], place: { to: "top" } });
    const all = { visibility: true, position: true, appearance: true };
    const { compId } = await edit(id, "edit.comps", { op: "layerComp:create", name: "Start", comment: "checklist", captures: all });
    await edit(id, "edit.layer", { op: "layer:update", layerId, visible: false });
    await edit(id, "edit.comps", { op: "layerComp:apply", compId });
    expectSame(problems, "applied", (await layerOf(id, layerId)).visible, true);
    const captures = { visibility: true, position: false, appearance: false };
    await edit(id, "edit.comps", { op: "layerComp:update", compId, name: "Renamed", comment: null, captures, recapture: true });
    expectSame(problems, "listed", (await call("document.comps", { documentId: id })).comps, [{ id: compId, name: "Renamed", comment: null, captures }]);
    await edit(id, "edit.comps", { op: "layerComp:delete", compId });
    expectSame(problems, "deleted", (await call("document.comps", { documentId: id })).comps, []);
    return `${fails(problems)}comp ${compId} made, applied, renamed and deleted`;
  });
  if (!values.remote) {
    await check("edit.contents: a PNG merged down into a pixel layer, which keeps its id, name, opacity and blend mode (E9)", async () => {
      const id = await scratch("bridge-checklist-contents");
      const problems = [];
      const { layerId } = await edit(id, "edit.layer", { op: "layer:create", kind: "pixel", name: "slot", fillColor: [0, 0, 0, 255], place: { to: "top" } });
      await edit(id, "edit.layer", { op: "layer:update", layerId, opacity: 60, blendMode: "multiply" });
      const png = join(dir, "contents.png");
      await sharp({ create: { width: 30, height: 10, channels: 4, background: "#00ff00" } }).png().toFile(png);
      const before = await history(id);
      await call("edit.contents", { documentId: id, edit: { op: "layer:replaceContents", layerId }, history: "layer:replaceContents", path: png, x: 20, y: 40 });
      const after = await history(id);
      if (after.count !== before.count + 1 || after.name !== "layer:replaceContents") problems.push(`${after.count - before.count} history states, the last "${after.name}"`);
      const layer = await layerOf(id, layerId);
      expectSame(problems, "layer", [layer.name, Math.round(layer.opacity), layer.blendMode, layer.kind, layer.rect], ["slot", 60, "multiply", "pixel", box(20, 40, 30, 10)]);
      return `${fails(problems)}the image took the layer's place at 20, 40`;
    });
  }
  await check("history: going back keeps the later states until the next change; names as given (H1)", async () => {
    const id = await scratch("bridge-checklist-history");
    const problems = [];
    const list = () => call("history", { documentId: id, op: "list" });
    const start = await list();
    for (const op of ["selection:all", "selection:clear", "selection:invert"]) await edit(id, "edit.selection", { op });
    const three = await list();
    expectSame(problems, "three edits", [three.names.slice(start.names.length), three.current], [["selection:all", "selection:clear", "selection:invert"], start.current + 3]);
    const back = await call("history", { documentId: id, op: "go", index: start.current + 1 });
    expectSame(problems, "gone back", [back.names.length, back.current], [three.names.length, start.current + 1]);
    expectSame(problems, "selection there", await call("selection.get", { documentId: id }), box(0, 0, 200, 150));
    // Not `edit`: this change adds one state and discards one.
    await call("edit.selection", { documentId: id, edit: { op: "selection:clear" }, history: "selection:clear" });
    const after = await list();
    expectSame(problems, "next change", [after.names.slice(start.names.length), after.current], [["selection:all", "selection:clear"], start.current + 2]);
    return `${fails(problems)}${three.names.length} states, back to ${start.current + 1}, ${after.names.length} after the next change`;
  });
  await check("foregroundColorChanged data stays a string (D10)", async () => {
    const seen = [];
    const sub = link.event("foregroundColorChanged").subscribe((data) => seen.push(data));
    await new Promise((resolve) => setTimeout(resolve, 500));
    await evaluate('var c = new SolidColor(); c.rgb.hexValue = "5e5555"; app.foregroundColor = c;');
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    sub.unsubscribe();
    return seen.length ? `raw data ${JSON.stringify(seen[0])}` : "FAIL no event within 1 s";
  });
  if (!values.remote) {
    await check("document.save: .psd and .psb headers; document.open reads it back (D4)", async () => {
      const psd = join(dir, "checklist.psd");
      const psb = join(dir, "checklist.psb");
      await call("document.save", { documentId: first.id, path: psd });
      await call("document.save", { documentId: first.id, path: psb });
      const versions = [(await readFile(psd)).readUInt16BE(4), (await readFile(psb)).readUInt16BE(4)];
      const reopened = await call("document.open", { path: psd });
      docs.push(reopened);
      return expectEqual("versions", versions, [1, 2]);
    });
  }
  await check("document.close", async () => {
    for (const d of docs.splice(0)) await call("document.close", { documentId: d.id });
    return "scratch documents closed";
  });
  subscription.unsubscribe();
} finally {
  for (const d of docs) await call("document.close", { documentId: d.id }).catch(() => {});
  await link.close();
  await rm(dir, { recursive: true, force: true });
}

if (values.json) console.log(JSON.stringify(rows));
else console.table(rows);
process.exitCode = rows.some((r) => r.ok === "FAIL") ? 1 : 0;
