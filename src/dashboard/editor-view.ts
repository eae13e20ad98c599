/*
 * One editor's card: its own connection (`?editor=<id>`, so the state events are this editor's), the active
 * document's composite preview with the selection outline drawn over it, and its layer tree with thumbnails.
 * Events mark the card stale; a refresh reads the document again, at most one at a time and one per interval.
 */
import { Connection, isBridgeImage } from "../client/index.js";
import type { HostDocument, HostLayer } from "../protocol/index.js";
import { browser, el, svg, type Elem, type ImageElem } from "./dom.js";

/** The longest edge of the composite preview, in pixels. */
const PREVIEW_MAX_SIZE = 480;
/** The longest edge of a layer thumbnail, in pixels. */
const THUMBNAIL_MAX_SIZE = 40;
/** Layers that get a thumbnail; a document with more shows the rest without (each thumbnail is an editor call). */
export const MAX_THUMBNAILS = 40;
/** Least time between two refreshes of one card: a burst of edits costs one read per interval, not one per edit. */
export const REFRESH_INTERVAL_MS = 250;

/** Characters of a client id that `server:clients` shows. */
const CLIENT_ID_PREFIX_CHARS = 8;
/** State events: they describe the editor's active document and come from this connection's editor only. */
const STATE_EVENTS = ["selection:changed", "layer:selectionChange", "layer:previewChange"] as const;
/**
 * Events that name their document reach a subscriber from every editor: only the first card subscribes to them,
 * or each would be logged once per editor. Types an editor kind does not know are skipped.
 */
const DOCUMENT_EVENTS = ["documentChanged", "currentDocumentChanged", "closedDocument", "editor:restarted", "#ready", "#closing"] as const;

/** What a refresh must read again. */
interface Stale {
  document: boolean;
  pixels: boolean;
  selection: boolean;
}

/** The path data of `selection:getPath`'s standalone SVG (document pixels). */
function pathDataOf(svgText: string): string | null {
  return /\sd="([^"]*)"/.exec(svgText)?.[1] ?? null;
}

function flatten(layers: readonly HostLayer[], depth: number, out: Array<{ layer: HostLayer; depth: number }>): void {
  for (const layer of layers) {
    out.push({ layer, depth });
    if (layer.children !== undefined) flatten(layer.children, depth + 1, out);
  }
}

export interface EditorViewOptions {
  readonly editorId: string;
  readonly url: string;
  readonly token: string | undefined;
  /** Subscribe to the events that name their document (one card per dashboard does). */
  readonly documentEvents: boolean;
  readonly onEvent: (editorId: string, type: string, data: unknown) => void;
  readonly onChange: () => void;
}

export class EditorView {
  readonly root: Elem;
  private readonly connection: Connection;
  private readonly title: Elem;
  private readonly message: Elem;
  private readonly preview: ImageElem;
  private readonly overlay: Elem;
  private readonly outline: Elem;
  private readonly layerList: Elem;
  private readonly activeLine: Elem;
  private previewUrl: string | undefined;
  private readonly thumbnailUrls = new Map<number, string>();
  private stale: Stale = { document: true, pixels: true, selection: true };
  private running = false;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private closed = false;
  private shownDocumentId: number | undefined;
  /** The first characters of this card's client id, as `server:clients` shows them, once connected. */
  private ownPrefix: string | undefined;

  constructor(private readonly options: EditorViewOptions) {
    this.title = el("h3", "", options.editorId);
    this.message = el("p", "muted", "connecting…");
    this.preview = el<ImageElem>("img", "preview");
    this.preview.alt = `active document of ${options.editorId}`;
    this.outline = svg("path", { class: "selection-outline", "fill-rule": "evenodd" });
    this.overlay = svg("svg", { class: "selection-overlay", preserveAspectRatio: "none" });
    this.overlay.append(this.outline);
    this.layerList = el("ul", "layers");
    this.activeLine = el("p", "active-layers");
    this.root = el(
      "section",
      "editor-card",
      this.title,
      this.message,
      el("div", "preview-box", this.preview, this.overlay),
      this.activeLine,
      this.layerList,
    );
    this.root.setAttribute("data-editor", options.editorId);
    const url = new URL("/ws", options.url.replace(/^http/, "ws"));
    url.searchParams.set("editor", options.editorId);
    this.connection = new Connection({ url: url.toString(), name: "dashboard", ...(options.token ? { token: options.token } : {}) });
    void this.start();
  }

  /** Closes the card's connection and frees its images. */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    for (const url of [this.previewUrl, ...this.thumbnailUrls.values()]) if (url !== undefined) browser.URL.revokeObjectURL(url);
    await this.connection.close();
  }

  /** Calls a method over this card's connection (the dashboard's "try it"): it goes to this card's editor. */
  invoke(method: string, params: Record<string, unknown>): Promise<unknown> {
    return this.connection.invoke(method, params);
  }

  /** The id prefix of this card's logical client (the clients table's row that is this tab), once connected. */
  get clientIdPrefix(): string | undefined {
    return this.ownPrefix;
  }

  private async start(): Promise<void> {
    try {
      const hello = await this.connection.ready();
      // Only the prefix is kept: the whole id would let anyone who reads it resume this client.
      this.ownPrefix = hello.clientId.slice(0, CLIENT_ID_PREFIX_CHARS);
    } catch (error) {
      this.show(`cannot connect: ${(error as Error).message}`);
      return;
    }
    // Back after a dropped socket, or events were missed: whatever the card shows may be old.
    this.connection.on("$lost", () => this.markStale({ document: true, pixels: true, selection: true }));
    this.connection.on("$close", ({ willReconnect }) => this.show(willReconnect ? "connection lost, reconnecting…" : "disconnected"));
    const types: readonly string[] = this.options.documentEvents ? [...STATE_EVENTS, ...DOCUMENT_EVENTS] : STATE_EVENTS;
    await Promise.all(
      types.map((type) =>
        this.connection
          .subscribe(type, (data: unknown) => this.onEvent(type, data))
          // An editor kind without this event refuses it; the card shows the others.
          .catch(() => undefined),
      ),
    );
    this.refresh();
  }

  get editorId(): string {
    return this.options.editorId;
  }

  /** The bridge id of the document the card shows, once read. */
  get documentId(): number | undefined {
    return this.shownDocumentId;
  }

  private onEvent(type: string, data: unknown): void {
    this.options.onEvent(this.options.editorId, type, data);
    // Events that name a document may be another editor's: the page routes them to the card that shows it.
    if (!(STATE_EVENTS as readonly string[]).includes(type)) return;
    this.apply(type, data);
  }

  /** Marks what an event changed as stale; the card reads it again at its next refresh. */
  apply(type: string, data: unknown): void {
    if (type === "selection:changed") this.markStale({ selection: true });
    else if (type === "layer:selectionChange") this.markStale({ document: true });
    else if (type === "layer:previewChange") this.markStale({ pixels: true });
    else if (type === "documentChanged") {
      const changed = data as { pixels?: boolean; layers?: boolean; selection?: boolean; activeLayers?: boolean };
      this.markStale({ pixels: changed.pixels === true || changed.layers === true, selection: changed.selection === true, document: true });
    } else this.markStale({ document: true, pixels: true, selection: true });
  }

  private markStale(what: Partial<Stale>): void {
    this.stale = {
      document: this.stale.document || what.document === true,
      pixels: this.stale.pixels || what.pixels === true,
      selection: this.stale.selection || what.selection === true,
    };
    if (!this.running && this.timer === undefined) this.refresh();
  }

  private refresh(): void {
    if (this.closed || this.running) return;
    const stale = this.stale;
    if (!stale.document && !stale.pixels && !stale.selection) return;
    this.stale = { document: false, pixels: false, selection: false };
    this.running = true;
    this.read(stale)
      .catch((error: unknown) => this.show((error as Error).message))
      .finally(() => {
        this.running = false;
        this.options.onChange();
        // Events that came during the read are served after the interval, in one read.
        this.timer = setTimeout(() => {
          this.timer = undefined;
          this.refresh();
        }, REFRESH_INTERVAL_MS);
      });
  }

  private async read(stale: Stale): Promise<void> {
    let doc: HostDocument;
    try {
      doc = await this.connection.document.current();
    } catch (error) {
      if ((error as { code?: string }).code === "NO_DOCUMENT") {
        this.shownDocumentId = undefined;
        this.show("no document open");
        this.preview.removeAttribute("src");
        this.layerList.replaceChildren();
        this.outline.setAttribute("d", "");
        return;
      }
      throw error;
    }
    this.shownDocumentId = doc.id;
    this.title.textContent = `${this.options.editorId} · ${doc.name}`;
    this.show(`${doc.width}×${doc.height} px${doc.isDirty ? " · modified" : ""}`);
    this.overlay.setAttribute("viewBox", `0 0 ${doc.width} ${doc.height}`);
    const documentId = doc.id;
    const [layers, image, path] = await Promise.all([
      this.connection.document.layers({ documentId }),
      stale.pixels || stale.document ? this.connection.image.exportDocument({ documentId, format: "png", maxSize: PREVIEW_MAX_SIZE }) : undefined,
      stale.selection || stale.document ? this.connection.selection.getPath({ documentId }) : undefined,
    ]);
    if (image !== undefined && isBridgeImage(image)) {
      const old = this.previewUrl;
      this.previewUrl = browser.URL.createObjectURL(image.blob());
      this.preview.src = this.previewUrl;
      if (old !== undefined) browser.URL.revokeObjectURL(old);
    }
    if (path !== undefined) this.drawSelection(path);
    const rows: Array<{ layer: HostLayer; depth: number }> = [];
    flatten(layers, 0, rows);
    const active = new Set(doc.activeLayerIds);
    this.activeLine.textContent = `active: ${rows.filter((r) => active.has(r.layer.id)).map((r) => r.layer.name).join(", ") || "none"}`;
    if (stale.pixels || stale.document) await this.readThumbnails(documentId, rows);
    this.layerList.replaceChildren(...rows.map((row) => this.layerRow(row.layer, row.depth, active.has(row.layer.id))));
  }

  private drawSelection(path: { svg: string; x: number; y: number; width: number; height: number } | null): void {
    if (path === null) {
      this.outline.setAttribute("d", "");
      return;
    }
    // Only the path data is used (set as an attribute, never parsed as markup); a rectangle when it has none.
    const d = pathDataOf(path.svg) ?? `M${path.x} ${path.y}h${path.width}v${path.height}h${-path.width}Z`;
    this.outline.setAttribute("d", d);
  }

  private async readThumbnails(documentId: number, rows: ReadonlyArray<{ layer: HostLayer }>): Promise<void> {
    const wanted = rows.slice(0, MAX_THUMBNAILS).map((row) => row.layer.id);
    const images = await Promise.all(
      wanted.map((id) =>
        this.connection.image.getPreview({ documentId, layerSpec: id, maxSize: THUMBNAIL_MAX_SIZE }).catch(() => undefined),
      ),
    );
    const keep = new Set(wanted);
    for (const [id, url] of this.thumbnailUrls) {
      if (!keep.has(id)) {
        browser.URL.revokeObjectURL(url);
        this.thumbnailUrls.delete(id);
      }
    }
    wanted.forEach((id, i) => {
      const image = images[i];
      if (image === undefined || !isBridgeImage(image)) return;
      const old = this.thumbnailUrls.get(id);
      this.thumbnailUrls.set(id, browser.URL.createObjectURL(image.blob()));
      if (old !== undefined) browser.URL.revokeObjectURL(old);
    });
  }

  private layerRow(layer: HostLayer, depth: number, active: boolean): Elem {
    const thumb = el<ImageElem>("img", "thumb");
    const url = this.thumbnailUrls.get(layer.id);
    if (url !== undefined) thumb.src = url;
    thumb.alt = "";
    const row = el(
      "li",
      `layer${active ? " active" : ""}${layer.visible ? "" : " invisible"}`,
      el("span", "visibility", layer.visible ? "●" : "○"),
      thumb,
      el("span", "layer-name", layer.name),
      el("span", "layer-kind", layer.kind),
    );
    // Through the CSSOM: the page's Content-Security-Policy refuses inline style attributes.
    row.style.paddingLeft = `${depth * 14}px`;
    row.setAttribute("data-layer-id", String(layer.id));
    row.title = `${layer.name}: ${layer.kind}, ${layer.visible ? "visible" : "hidden"}, opacity ${layer.opacity}%`;
    return row;
  }

  private show(text: string): void {
    this.message.textContent = text;
    this.options.onChange();
  }
}
