import { Observable, Subject } from "rxjs";
import type { HostBounds, HostLayer } from "../../protocol/index.js";
import type { DocumentTree } from "../host.js";
import { readEnvelope } from "./envelope.js";
import { busy, jsxFailed, unavailable } from "./errors.js";
import type { PhotoshopLink, PixmapReply, PixmapRequest } from "./link.js";
import { PixmapError, toRgba } from "./pixmap.js";
import { OPERATION_MARKER, buildScript, paramsLiteral } from "./operations.js";

/** How long the first `app.info` may take when the link opens: Photoshop answers in well under a second. */
const APP_INFO_TIMEOUT_MS = 10_000;

/** A Q promise as generator-core returns it (only what is used here). */
interface QPromise<T> extends PromiseLike<T> {
  progress?(fn: (message: { type: string; value: unknown }) => void): unknown;
}

/** What generator-core's `xpm.Pixmap` carries (reference A "Generator methods used"). */
export interface GeneratorPixmap {
  width: number;
  height: number;
  rowBytes: number;
  channelCount: number;
  bitsPerChannel: number;
  /** generator-core slices `width × height × channels` bytes, ignoring row padding. */
  pixels: Buffer;
  bounds?: HostBounds;
}

/** generator-core's layer range: indices inclusive, with the indices to leave out (a range renders hidden layers). */
export interface LayerRange {
  firstLayerIndex: number;
  lastLayerIndex: number;
  hidden: number[];
}

/** Generator indices of hidden layers and of everything inside a hidden group (as generator-core computes them). */
function hiddenIndices(layers: readonly HostLayer[], hideAll: boolean, out: number[] = []): number[] {
  for (const layer of layers) {
    const hide = hideAll || !layer.visible;
    if (hide) out.push(layer.index);
    if (layer.children) hiddenIndices(layer.children, hide, out);
  }
  return out;
}

/** The part of generator-core's `Generator` the bridge uses. */
export interface GeneratorLike {
  evaluateJSXString(script: string, sharedEngineSafe?: boolean): PromiseLike<unknown>;
  getPixmap(documentId: number, layerSpec: number | LayerRange, settings: Record<string, unknown>): PromiseLike<GeneratorPixmap>;
  onPhotoshopEvent(name: string, listener: (data: unknown) => void): void;
  removePhotoshopEventListener(name: string, listener: (data: unknown) => void): void;
  getPhotoshopVersion?(): PromiseLike<string>;
  isConnected?(): boolean;
  on(event: "close", listener: () => void): unknown;
  /** Private: a deferred that sees every message of the id and must be resolved by the caller (frees the id). */
  _sendJSXString?(script: string, deferred?: unknown, sharedEngineSafe?: boolean): { promise: QPromise<unknown>; resolve(value?: unknown): void };
}

/**
 * A script of the user's (not one of the bridge's operations) made safe for generator-core, which takes a reply
 * holding one `\r` for an event (`name\rdata`: the call would never resolve) and `JSON.parse`s every reply ("007"
 * would come back as 7). The script runs through `eval` inside an ES3 function and answers its completion value's
 * text as a JSON string literal, which generator-core parses back to exactly that text. Operations need none of
 * this: their envelopes escape every control character.
 */
export function quotedCompletion(source: string): string {
  return String.raw`(function (source) {
  var value = eval(source), text = value === undefined ? "" : String(value), out = "\"", i, c;
  for (i = 0; i < text.length; i++) {
    c = text.charCodeAt(i);
    if (c === 34 || c === 92) out += "\\" + text.charAt(i);
    else if (c < 32 || c === 0x2028 || c === 0x2029) out += "\\u" + ("0000" + c.toString(16)).slice(-4);
    else out += text.charAt(i);
  }
  return out + "\"";
})(${paramsLiteral(source)});`;
}

/** generator-core guesses replies through `JSON.parse`; the adapter wants the text back. */
function asText(value: unknown): string {
  if (typeof value === "string") return value;
  return JSON.stringify(value) ?? "";
}

/**
 * A pixmap with its rows as Photoshop sent them: generator-core's `pixels` is a view into the whole message, so
 * the padded rows (when `rowBytes` exceeds the row) are recovered from the same memory rather than misread.
 */
function pixmapRows(p: GeneratorPixmap): { src: Buffer; offset: number; rowBytes: number } {
  const needed = p.rowBytes * Math.max(0, p.height - 1) + p.width * p.channelCount;
  const full = Buffer.from(p.pixels.buffer, p.pixels.byteOffset, Math.max(0, p.pixels.buffer.byteLength - p.pixels.byteOffset));
  if (full.length >= needed) return { src: full, offset: 0, rowBytes: p.rowBytes };
  return { src: p.pixels, offset: 0, rowBytes: p.width * p.channelCount };
}

/**
 * The Photoshop link inside the Generator plugin: generator-core already holds the connection (pipes in built-in
 * mode), so scripts go through its API. It has no timeouts and never rejects on disconnect (reference A): both are
 * added here, from the call's signal and the generator's `close` event.
 */
export class GeneratorLink implements PhotoshopLink {
  readonly lost$ = new Subject<Error>();
  private closed = false;
  private readonly inFlight = new Set<(error: Error) => void>();

  constructor(
    private readonly generator: GeneratorLike,
    private readonly maxPixmapEdge: number,
  ) {
    generator.on("close", () => {
      if (this.closed) return;
      this.closed = true;
      const error = unavailable("Photoshop closed the Generator connection");
      for (const fail of [...this.inFlight]) fail(error);
      this.lost$.next(error);
    });
  }

  async open(): Promise<string> {
    if (this.closed) throw unavailable("Photoshop closed the Generator connection");
    const info = readEnvelope(await this.evaluate(buildScript("app.info", {}), AbortSignal.timeout(APP_INFO_TIMEOUT_MS)), "app.info") as { version?: unknown };
    return String(info.version ?? "unknown");
  }

  async close(): Promise<void> {
    for (const fail of [...this.inFlight]) fail(unavailable("The Photoshop link was closed"));
  }

  /** Races a generator promise against the call's deadline and the connection's end. */
  private guard<T>(start: () => PromiseLike<T>, signal: AbortSignal, onGiveUp?: () => void): Promise<T> {
    if (this.closed) return Promise.reject(unavailable("Photoshop closed the Generator connection"));
    if (signal.aborted) return Promise.reject(busy("The call's deadline passed before it was sent"));
    return new Promise<T>((resolve, reject) => {
      const fail = (error: Error): void => {
        done();
        onGiveUp?.();
        reject(error);
      };
      const onAbort = (): void => fail(busy("Photoshop did not answer within the call's deadline"));
      const done = (): void => {
        this.inFlight.delete(fail);
        signal.removeEventListener("abort", onAbort);
      };
      this.inFlight.add(fail);
      signal.addEventListener("abort", onAbort, { once: true });
      start().then(
        (value) => {
          done();
          resolve(value);
        },
        (error: unknown) => {
          done();
          reject(jsxFailed(typeof error === "string" ? error : String((error as Error)?.message ?? error)));
        },
      );
    });
  }

  evaluate(source: string, signal: AbortSignal): Promise<string> {
    const script = source.includes(OPERATION_MARKER) ? source : quotedCompletion(source);
    const send = this.generator._sendJSXString?.bind(this.generator);
    if (!send) return this.guard(() => this.generator.evaluateJSXString(script), signal).then(asText);
    // The private deferred lets us free the id ourselves when we give up (reference A).
    const deferred = send(script);
    const first = new Promise<unknown>((resolve, reject) => {
      deferred.promise.progress?.((message) => {
        if (message.type === "javascript") {
          deferred.resolve();
          resolve(message.value);
        }
      });
      deferred.promise.then(undefined, reject);
    });
    return this.guard(() => first, signal, () => deferred.resolve()).then(asText);
  }

  async pixmap(request: PixmapRequest, signal: AbortSignal): Promise<PixmapReply> {
    let layerSpec: number | LayerRange;
    let bounds: HostBounds | undefined;
    if (request.layerId !== undefined) {
      layerSpec = request.layerId;
    } else {
      const tree = readEnvelope(await this.evaluate(buildScript("document.tree", { documentId: request.documentId }), signal), "document.tree") as DocumentTree;
      layerSpec = { firstLayerIndex: 0, lastLayerIndex: tree.layers[0]?.index ?? 0, hidden: hiddenIndices(tree.layers, false) };
      bounds = { left: 0, top: 0, right: tree.document.width, bottom: tree.document.height };
    }
    const settings = {
      scaleX: request.scale,
      scaleY: request.scale,
      maxDimension: request.maxDimension,
      clipToDocumentBounds: request.layerId === undefined,
    };
    const p = await this.guard(() => this.generator.getPixmap(request.documentId, layerSpec, settings), signal);
    if (p.bitsPerChannel !== 8 || (p.channelCount !== 3 && p.channelCount !== 4)) {
      throw jsxFailed(new PixmapError(`unsupported pixmap: ${p.channelCount} channels of ${p.bitsPerChannel} bits`).message);
    }
    if (p.width * p.height > this.maxPixmapEdge ** 2) throw jsxFailed(`pixmap of ${p.width}×${p.height} is too large`);
    const rows = pixmapRows(p);
    const rgba = toRgba(rows.src, rows.offset, p.width, p.height, rows.rowBytes, p.channelCount);
    return { bounds: bounds ?? p.bounds ?? { left: 0, top: 0, right: p.width, bottom: p.height }, pixmap: { width: p.width, height: p.height, rgba } };
  }

  event(name: string): Observable<string> {
    return new Observable<string>((subscriber) => {
      const listener = (data: unknown): void => subscriber.next(asText(data));
      // generator-core subscribes once per name and never unsubscribes in Photoshop; we only detach (reference A).
      this.generator.onPhotoshopEvent(name, listener);
      return () => this.generator.removePhotoshopEventListener(name, listener);
    });
  }
}
