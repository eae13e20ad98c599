/*
 * executeAction in the DOM stub: the ActionManager events the scripts play (select a layer, an elliptical selection,
 * a PSB save, Select Subject, pixmaps, event subscriptions). Anything else fails the run.
 */
import { basename } from "node:path";
import type { FakeDocument } from "../model.js";
import { type FakeLayer, layerBounds, layerEntries } from "../layers.js";
import { StubActionDescriptor, type StubActionList, type StubActionReference, type TypeIds } from "./action.js";
import type { StubEffects } from "./dom.js";
import { clip, ellipse } from "./paths.js";

export interface ActionRunDeps {
  ids: TypeIds;
  fail: (message: string) => Error;
  activeDocument: () => FakeDocument;
  docById: (id: number) => FakeDocument;
  effects: StubEffects;
  writePsd: (d: FakeDocument, path: string, psb?: boolean) => void;
}

/** The stub's executeAction(event, descriptor, dialogMode). */
export function actionRun({ ids, fail, activeDocument, docById, effects, writePsd }: ActionRunDeps): (event: number, desc: StubActionDescriptor | undefined, mode?: unknown) => StubActionDescriptor {
  const s = (n: number): string => ids.typeIDToStringID(n);
  return (event: number, desc: StubActionDescriptor | undefined, mode?: unknown): StubActionDescriptor => {
    void mode;
    const name = s(event);
    const k = (id: string): number => ids.stringIDToTypeID(id);
    const d = (): FakeDocument => activeDocument();
    const activeLayer = (): FakeLayer => {
      const l = layerEntries(d().layers).find((e) => e.layer.id === d().active[0])?.layer;
      if (!l) throw new Error("General Photoshop error occurred. The command is not currently available.");
      return l;
    };
    if (name === "select" && desc) {
      const ref = desc.item(k("null"))?.value as StubActionReference;
      const part = ref.parts[0]!;
      if (s(part.desiredClass) !== "layer" || part.form !== "identifier") throw fail("select: only layers by id are modelled");
      const doc = d();
      const found = layerEntries(doc.layers).find((e) => e.layer.id === part.id);
      if (!found) throw new Error("General Photoshop error occurred. No such element");
      const modifier = desc.item(k("selectionModifier"));
      const add = modifier !== undefined && s(modifier.value as number) === "addToSelection";
      // MkVs false: selecting does not show a hidden layer.
      if (desc.item(k("makeVisible"))?.value !== false) found.layer.visible = true;
      const next = add ? [...doc.active, part.id] : [part.id];
      doc.active = layerEntries(doc.layers).filter((e) => next.includes(e.layer.id)).map((e) => e.layer.id);
    } else if (name === "set" && desc) {
      const ref = desc.item(k("null"))?.value as StubActionReference;
      const to = desc.item(k("to"));
      if (ref.parts[0]?.form !== "property" || s(ref.parts[0].property) !== "selection" || !to || s(to.classID!) !== "ellipse") throw fail("set: only the selection to an ellipse is modelled");
      const box = to.value as StubActionDescriptor;
      const v = (key: string): number => {
        const item = box.item(k(key));
        if (item?.type !== "unitDouble" || s(item.classID!) !== "pixelsUnit") throw fail(`set ellipse: ${key} must be a unitDouble in pixelsUnit`);
        return item.value as number;
      };
      d().selection = ellipse(d(), v("left"), v("top"), v("right"), v("bottom"));
    } else if (name === "save" && desc) {
      // save with `as` = largeDocumentFormat and `in` = the file: Save As Large Document Format (PSB).
      const as = desc.item(k("as"));
      const file = desc.item(k("in"))?.value as { fsName: string } | undefined;
      if (as?.type !== "object" || s(as.classID!) !== "largeDocumentFormat" || !file) throw fail("save: only as largeDocumentFormat in a file is modelled");
      const doc = d();
      writePsd(doc, file.fsName, true);
      Object.assign(doc, { filePath: file.fsName, name: basename(file.fsName), dirty: false, format: "psb" });
    } else if (name === "autoCutout") {
      const b = layerBounds(activeLayer());
      if (b.right > b.left && b.bottom > b.top) d().selection = clip(d(), b.left, b.top, b.right, b.bottom);
    } else if (name === "removeBackground") {
      activeLayer();
    } else if (name === "sendLayerThumbnailToNetworkClient" && desc) {
      const int = (key: string): number | undefined => desc.item(k(key))?.value as number | undefined;
      const transform = desc.item(k("transform"))?.value as StubActionDescriptor | undefined;
      // layerSettings: one entry per index from firstLayer; `layerSettings.enabled = false` switches a layer off.
      const settings = desc.item(k("layerSettings"))?.value as StubActionList | undefined;
      const hidden: number[] = [];
      for (let i = 0; i < (settings?.count ?? 0); i++) {
        const entry = (settings!.values[i] as StubActionDescriptor).item(k("layerSettings"))?.value as StubActionDescriptor | undefined;
        if (entry?.item(k("enabled"))?.value === false) hidden.push((int("firstLayer") ?? 0) + i);
      }
      const documentId = int("documentID");
      if (documentId === undefined) throw fail("sendLayerThumbnailToNetworkClient without documentID");
      docById(documentId);
      effects.pixmaps.push({
        documentId,
        layerId: int("layerID"),
        firstLayer: int("firstLayer"),
        lastLayer: int("lastLayer"),
        hidden,
        scale: transform ? (transform.item(k("width"))!.value as number) / 100 : 1,
        maxDimension: int("width") ?? 10000,
        boundsOnly: desc.item(k("boundsOnly"))?.value === true,
      });
    } else if ((name === "networkEventSubscribe" || name === "networkEventUnsubscribe") && desc) {
      const cls = desc.item(k("eventIDAttr"));
      if (cls?.type !== "class") throw fail(`${name} without an eventIDAttr class`);
      effects.subscriptions.push({ event: s(cls.value as number), subscribe: name === "networkEventSubscribe" });
    } else {
      throw fail(`executeAction("${name}") is not modelled`);
    }
    return new StubActionDescriptor();
  };
}
