/**
 * The guest side of the editor API, evaluated in the sandbox before each script. It is modelled on what
 * Photoshop scripters know (`app.activeDocument.activeLayer.opacity = 50`), but every object is a thin handle
 * (document id, layer id) whose properties are read from the editor on each access: only JSON crosses.
 * `__host` / `__hostAsync` are captured and removed from the global object so scripts use the API only.
 */
export const EDITOR_API_PRELUDE = `(function () {
  "use strict";
  const host = globalThis.__host;
  const hostAsync = globalThis.__hostAsync;
  delete globalThis.__host;
  delete globalThis.__hostAsync;

  class BridgeError extends Error {
    constructor(error) {
      super(error.message);
      this.name = "BridgeError";
      this.code = error.code;
      if (error.details !== undefined) this.details = error.details;
    }
  }
  const unwrap = (text) => {
    const reply = JSON.parse(text);
    if (!reply.ok) throw new BridgeError(reply.error);
    return reply.value;
  };
  const call = (op, args) => unwrap(host(op, JSON.stringify(args === undefined ? null : args)));
  const callAsync = (op, args) => hostAsync(op, JSON.stringify(args === undefined ? null : args)).then(unwrap);
  const rectOf = (region) => {
    if (Array.isArray(region)) {
      if (region.length === 4 && region.every((v) => typeof v === "number")) {
        return { rect: { x: region[0], y: region[1], width: region[2] - region[0], height: region[3] - region[1] } };
      }
      return { polygon: region };
    }
    if (region && typeof region === "object" && "left" in region) {
      return { rect: { x: region.left, y: region.top, width: region.right - region.left, height: region.bottom - region.top } };
    }
    return { rect: region };
  };
  const withLookup = (items) => {
    Object.defineProperty(items, "getByName", {
      value: (name) => {
        const found = items.find((item) => item.name === name);
        if (!found) throw new BridgeError({ code: "LAYER_NOT_FOUND", message: "No item named " + name });
        return found;
      },
    });
    return items;
  };

  class Layer {
    constructor(documentId, id, kind) {
      Object.defineProperty(this, "documentId", { value: documentId, enumerable: true });
      Object.defineProperty(this, "id", { value: id, enumerable: true });
      Object.defineProperty(this, "kind", { value: kind, enumerable: true });
    }
    info() { return call("layer.info", { doc: this.documentId, layer: this.id }); }
    set(props) { call("layer.set", Object.assign({ doc: this.documentId, layer: this.id }, props)); return this; }
    get name() { return this.info().name; }
    set name(value) { this.set({ name: value }); }
    get visible() { return this.info().visible; }
    set visible(value) { this.set({ visible: value }); }
    get opacity() { return this.info().opacity; }
    set opacity(value) { this.set({ opacity: value }); }
    get blendMode() { return this.info().blendMode; }
    set blendMode(value) { this.set({ blendMode: value }); }
    get bounds() { return this.info().bounds; }
    get index() { return this.info().index; }
    get isGroup() { return this.kind === "group"; }
    get parent() {
      const id = this.info().parentId;
      return id === null ? null : new Layer(this.documentId, id, "group");
    }
    get layers() {
      return withLookup(call("doc.layers", { doc: this.documentId, parent: this.id }).map((l) => new Layer(this.documentId, l.id, l.kind)));
    }
    translate(dx, dy) { call("layer.translate", { doc: this.documentId, layer: this.id, dx: dx, dy: dy === undefined ? 0 : dy }); return this; }
    duplicate(name) {
      const copy = call("layer.duplicate", name === undefined ? { doc: this.documentId, layer: this.id } : { doc: this.documentId, layer: this.id, name: name });
      return new Layer(this.documentId, copy.id, copy.kind);
    }
    remove() { call("layer.remove", { doc: this.documentId, layer: this.id }); }
    /* Moves the layer: place is one of { above: layer }, { below: layer }, { parent: group } (its top) or { to: "top" | "bottom" }; layers may be given as Layer objects or ids. */
    move(place) {
      const ref = (value) => (value !== null && typeof value === "object" ? value.id : value);
      const key = ["above", "below", "parent", "to"].find((name) => place && place[name] !== undefined);
      const args = { doc: this.documentId, layer: this.id };
      if (key !== undefined) args[key] = key === "to" ? place.to : ref(place[key]);
      call("layer.move", args);
      return this;
    }
    fill(color) { call("layer.fill", { doc: this.documentId, layer: this.id, color: color }); return this; }
    clear() { call("layer.fill", { doc: this.documentId, layer: this.id, color: "transparent", clear: true }); return this; }
    /* Hides the background through a layer mask, like Remove Background in Photoshop; resolves whether it found a subject. options.method: "auto", "model", "grabcut" or "flood". */
    removeBackground(options) { return callAsync("layer.removeBackground", Object.assign({ doc: this.documentId, layer: this.id }, options && options.method !== undefined ? { method: options.method } : {})); }
    toJSON() { return this.info(); }
  }

  class Selection {
    constructor(documentId) { Object.defineProperty(this, "documentId", { value: documentId, enumerable: true }); }
    select(region) { call("selection.set", Object.assign({ doc: this.documentId }, rectOf(region))); return this; }
    selectEllipse(rect) { call("selection.set", { doc: this.documentId, ellipse: rect }); return this; }
    selectAll() {
      const info = call("doc.info", { doc: this.documentId });
      return this.select({ x: 0, y: 0, width: info.width, height: info.height });
    }
    deselect() { call("selection.set", { doc: this.documentId, rect: null }); return this; }
    /* Selects the subject (of the given layer, else of the active one), like Select Subject in Photoshop; resolves whether it found one. options.method: "auto", "model", "grabcut" or "flood". */
    selectSubject(layer, options) {
      if (layer !== undefined && !(layer instanceof Layer)) { options = layer; layer = undefined; }
      const args = layer === undefined ? { doc: this.documentId } : { doc: this.documentId, layer: layer.id };
      return callAsync("selection.selectSubject", options && options.method !== undefined ? Object.assign(args, { method: options.method }) : args);
    }
    get bounds() { return call("selection.get", { doc: this.documentId }); }
    get solid() { return this.bounds !== null; }
    fill(color) {
      const active = call("doc.activeLayer", { doc: this.documentId });
      if (active === null) throw new BridgeError({ code: "LAYER_NOT_FOUND", message: "No active layer to fill" });
      call("layer.fill", { doc: this.documentId, layer: active.id, color: color });
      return this;
    }
    clear() {
      const active = call("doc.activeLayer", { doc: this.documentId });
      if (active === null) throw new BridgeError({ code: "LAYER_NOT_FOUND", message: "No active layer to clear" });
      call("layer.fill", { doc: this.documentId, layer: active.id, color: "transparent", clear: true });
      return this;
    }
    toJSON() { return this.bounds; }
  }

  class Document {
    constructor(id) { Object.defineProperty(this, "id", { value: id, enumerable: true }); }
    info() { return call("doc.info", { doc: this.id }); }
    get name() { return this.info().name; }
    get width() { return this.info().width; }
    get height() { return this.info().height; }
    get resolution() { return this.info().resolution; }
    get saved() { return !this.info().isDirty; }
    get path() { return this.info().filePath === undefined ? null : this.info().filePath; }
    get layers() { return withLookup(call("doc.layers", { doc: this.id }).map((l) => new Layer(this.id, l.id, l.kind))); }
    get allLayers() { return withLookup(call("doc.layers", { doc: this.id, flat: true }).map((l) => new Layer(this.id, l.id, l.kind))); }
    get artLayers() {
      const doc = this;
      const items = withLookup(this.layers.filter((l) => l.kind !== "group"));
      Object.defineProperty(items, "add", { value: (name) => { const l = call("doc.addLayer", name === undefined ? { doc: doc.id, kind: "pixel" } : { doc: doc.id, kind: "pixel", name: name }); return new Layer(doc.id, l.id, l.kind); } });
      return items;
    }
    get layerSets() {
      const doc = this;
      const items = withLookup(this.layers.filter((l) => l.kind === "group"));
      Object.defineProperty(items, "add", { value: (name) => { const l = call("doc.addLayer", name === undefined ? { doc: doc.id, kind: "group" } : { doc: doc.id, kind: "group", name: name }); return new Layer(doc.id, l.id, l.kind); } });
      return items;
    }
    get activeLayer() {
      const l = call("doc.activeLayer", { doc: this.id });
      return l === null ? null : new Layer(this.id, l.id, l.kind);
    }
    set activeLayer(layer) { call("doc.setActiveLayer", { doc: this.id, layer: typeof layer === "number" ? layer : layer.id }); }
    get selection() { return new Selection(this.id); }
    layerById(id) {
      const found = call("doc.layers", { doc: this.id, flat: true }).find((l) => l.id === id);
      if (!found) throw new BridgeError({ code: "LAYER_NOT_FOUND", message: "No layer with id " + id });
      return new Layer(this.id, found.id, found.kind);
    }
    flatten() { const l = call("doc.flatten", { doc: this.id }); return new Layer(this.id, l.id, l.kind); }
    close() { call("doc.close", { doc: this.id }); }
    save(path, options) {
      // save(), save(path), save(options) or save(path, options); options: { allowLossy, backup }.
      if (typeof path === "object" && path !== null) { options = path; path = undefined; }
      const args = Object.assign({ doc: this.id }, options || {});
      if (path !== undefined) args.path = path;
      return callAsync("doc.save", args);
    }
    exportDocument(path, options) { return callAsync("doc.exportFile", Object.assign({ doc: this.id, path: path }, options || {})); }
    exportImage(options) { return callAsync("doc.exportImage", Object.assign({ doc: this.id }, options || {})); }
    toJSON() { return this.info(); }
  }

  const app = {
    name: "embedded",
    get documents() {
      const items = withLookup(call("app.documents").map((id) => new Document(id)));
      Object.defineProperty(items, "add", {
        value: (width, height, name, background) => {
          const args = { width: width, height: height };
          if (name !== undefined) args.name = name;
          if (background !== undefined) args.background = background;
          return new Document(call("app.createDocument", args));
        },
      });
      return items;
    },
    get activeDocument() {
      const id = call("app.activeDocument");
      if (id === null) throw new BridgeError({ code: "NO_DOCUMENT", message: "No document is open" });
      return new Document(id);
    },
    set activeDocument(doc) { call("app.setActiveDocument", { doc: typeof doc === "number" ? doc : doc.id }); },
    open(path) { return callAsync("app.open", { path: path }).then((id) => new Document(id)); },
  };

  /* Reports how far the script has come: p from 0 to 1, with an optional short message. */
  const progress = (p, message) => {
    if (typeof p !== "number" || !(p >= 0 && p <= 1)) {
      const got = typeof p === "number" ? String(p) : typeof p;
      throw new BridgeError({ code: "BAD_REQUEST", message: "progress(p, message?) needs p as a number from 0 to 1, got " + got, details: { progress: got } });
    }
    if (message !== undefined && typeof message !== "string") {
      throw new BridgeError({ code: "BAD_REQUEST", message: "progress(p, message?) needs message as a string, got " + typeof message });
    }
    call("script.progress", message === undefined ? { progress: p } : { progress: p, message: message });
  };

  Object.defineProperty(globalThis, "app", { value: Object.freeze(app), enumerable: true });
  Object.defineProperty(globalThis, "progress", { value: progress, enumerable: true });
  Object.defineProperty(globalThis, "BridgeError", { value: BridgeError });
  if (typeof globalThis.params === "undefined") globalThis.params = {};
})();
`;
