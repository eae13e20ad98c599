import { rename, rm, stat } from "node:fs/promises";
import { join } from "node:path";
import type { FileFeatures } from "../../files/index.js";
import type { Logger } from "../../logger.js";
import { isBridgeError } from "../../protocol/index.js";
import type { EditorRecovery } from "../host.js";
import type { GimpIds } from "./ids.js";
import { parseTattoos, type FileIdentity, type ImageOrigin } from "./origins.js";
import { asList, asNumber, asString, int, lit, type Sexp } from "./scheme.js";

/** How often and within what disk budget a supervised GIMP's images are copied. */
export interface GimpRecoverySettings {
  /** An image is copied once it has not changed for this long (a burst of edits costs one copy). */
  readonly settleMs: number;
  /** Least time between two copies of one image: how much of its work, at most, GIMP's loss can take. */
  readonly intervalMs: number;
  /** Bytes the copies may take on disk together; an image whose copy would pass it gets none. */
  readonly maxBytes: number;
}

/** What the recovery copies need of the connection. */
export interface RecoveryDeps {
  /** Evaluates a form in GIMP (the adapter's deadline, queued behind the clients' calls). */
  call(form: string): Promise<Sexp>;
  /** The private folder of copies (in the supervised GIMP's temporary root, which its restarts keep). */
  dir(): Promise<string>;
  /** What the file each image was opened from held, by GIMP image id (carried over to the reopened image). */
  readonly sources: Map<number, FileFeatures>;
  /** How each image came to be (opened from a file, made by `document:create`), by GIMP image id. */
  readonly origins: ReadonlyMap<number, ImageOrigin>;
  /**
   * Loads the file at `path` into GIMP as an image of that path, clean, when it is still the file of `identity`;
   * answers `(img ((layer tattoo) ...))`, or undefined when the file changed, is gone or cannot be read.
   */
  reopenFile(path: string, identity: FileIdentity): Promise<Sexp | undefined>;
  readonly ids: GimpIds;
  readonly log?: Logger | undefined;
}

/** One image's latest copy. Ids are the adapter's (stable), not GIMP's. */
interface Copy {
  readonly file: string;
  readonly bytes: number;
  /** The image's change count the copy holds. */
  readonly revision: number;
  readonly dirty: boolean;
  readonly path: string;
  readonly name: string;
  /** Each layer's id by its tattoo (XCF keeps tattoos; GIMP gives reopened layers new ids). */
  readonly layers: ReadonlyMap<number, number>;
  readonly features: FileFeatures | undefined;
}

/** How an image came to be, in the adapter's ids: an image no call changed is made again from it, without a copy. */
interface Origin {
  readonly from: { readonly kind: "file"; readonly path: string; readonly identity: FileIdentity } | { readonly kind: "new"; readonly form: string };
  /** Each layer's id by its tattoo, as the image was made (a file loaded again gives its layers the same tattoos). */
  readonly layers: ReadonlyMap<number, number>;
  readonly features: FileFeatures | undefined;
}

/** One image the adapter knows: opened or made by a call, or changed by one. */
interface Tracked {
  /** Bumped when a call that may change the image starts and when it ends; 0 while none has. */
  revision: number;
  copy: Copy | undefined;
  /** How it came to be, when a call opened or made it. */
  origin: Origin | undefined;
  lastCopyAt: number;
  timer: NodeJS.Timeout | undefined;
}

/**
 * Recovery copies of a supervised GIMP's images: every image a call changed is written as XCF (`gimp-xcf-save`,
 * which leaves the image's file name and dirty flag alone) into a private folder, once its changes settle and at
 * most every `intervalMs`, within `maxBytes` on disk. When GIMP is lost, `reopen()` loads every copy into the new
 * GIMP, restores file name, name and dirty flag (XCF keeps the layers, their tattoos, the active layer and the
 * selection), and maps the new image and layer ids back to the old ones (layers by tattoo).
 *
 * An image a call opened or made needs no copy while no call has changed it: it is made again from its origin, a
 * file opened anew when it is still the file that was read (same size and modification time; a changed or vanished
 * file loses the image), a new image by the same `document:create`. An image that changed but has no copy (not
 * settled yet, over the disk budget) comes back the same way, reported as having lost its changes.
 */
export class GimpRecovery {
  private readonly images = new Map<number, Tracked>();
  /** Copies run one at a time, each one Script-Fu call queued like any other. */
  private chain: Promise<void> = Promise.resolve();
  /** Set when a script ran: any image may have changed, so every open one is looked at. */
  private everything = false;
  private everythingTimer: NodeJS.Timeout | undefined;
  /** After a loss: the copies to reopen and whether each holds the image's latest change. */
  private pending: Array<{ id: number; copy: Copy | undefined; origin: Origin | undefined; current: boolean }> | undefined;
  private report: EditorRecovery | undefined;
  private stopped = false;

  constructor(
    private readonly settings: GimpRecoverySettings,
    private readonly deps: RecoveryDeps,
  ) {}

  /** Images (adapter ids) whose copy holds their latest change. */
  get copiedDocumentIds(): number[] {
    return [...this.images].filter(([, t]) => t.copy !== undefined && t.copy.revision === t.revision && t.timer === undefined).map(([id]) => id);
  }

  /** A call that may change image `id` (adapter id) starts or ended; `"all"` for scripts, which reach any image. */
  changed(id: number | "all"): void {
    if (this.stopped) return;
    if (id === "all") {
      this.everything = true;
      for (const tracked of this.images.values()) tracked.revision++;
      clearTimeout(this.everythingTimer);
      this.everythingTimer = setTimeout(() => this.enqueue(() => this.copyAll()), this.settings.settleMs);
      this.everythingTimer.unref();
      return;
    }
    let tracked = this.images.get(id);
    if (tracked === undefined) {
      tracked = { revision: 0, copy: undefined, origin: undefined, lastCopyAt: 0, timer: undefined };
      this.images.set(id, tracked);
    }
    tracked.revision++;
    this.schedule(id, tracked);
  }

  /**
   * A call opened or made image `id` (adapter id): it is tracked with its origin (`deps.origins`), and copied only
   * once a call changes it.
   */
  made(id: number): void {
    if (this.stopped) return;
    const gimpId = this.deps.ids.images.in(id);
    const origin = gimpId === undefined ? undefined : this.deps.origins.get(gimpId);
    if (gimpId === undefined || origin === undefined) {
      this.changed(id);
      return;
    }
    const layers = new Map(origin.tattoos.map(([layer, tattoo]) => [tattoo, this.deps.ids.layers.out(layer)] as const));
    const from = origin.kind === "file" ? { kind: "file" as const, path: origin.path, identity: origin.identity } : { kind: "new" as const, form: origin.form };
    this.images.set(id, { revision: 0, copy: undefined, origin: { from, layers, features: this.deps.sources.get(gimpId) }, lastCopyAt: 0, timer: undefined });
  }

  /** The image was closed: its copy goes too. */
  closed(id: number): void {
    const tracked = this.images.get(id);
    this.images.delete(id);
    if (tracked === undefined) return;
    clearTimeout(tracked.timer);
    if (tracked.copy !== undefined) void rm(tracked.copy.file, { force: true });
  }

  private schedule(id: number, tracked: Tracked): void {
    clearTimeout(tracked.timer);
    const now = Date.now();
    const at = Math.max(now + this.settings.settleMs, tracked.lastCopyAt + this.settings.intervalMs);
    tracked.timer = setTimeout(() => {
      tracked.timer = undefined;
      this.enqueue(() => this.copy(id, tracked));
    }, at - now);
    tracked.timer.unref();
  }

  private enqueue(task: () => Promise<void>): void {
    this.chain = this.chain.then(task).catch((error: unknown) => {
      this.deps.log?.debug({ actor: "host", editor: "gimp", err: String(error) }, "recovery copy failed");
    });
  }

  /** After a script: every open image is tracked (and copied once it settles). */
  private async copyAll(): Promise<void> {
    if (!this.everything || this.stopped) return;
    this.everything = false;
    const open = asList(await this.deps.call("(br-images)"), "image list").map((v) => this.deps.ids.images.out(asNumber(v, "image id")));
    for (const id of [...this.images.keys()]) if (!open.includes(id)) this.closed(id);
    for (const id of open) this.changed(id);
  }

  private async copy(id: number, tracked: Tracked): Promise<void> {
    if (this.stopped || this.images.get(id) !== tracked) return;
    const gimpId = this.deps.ids.images.in(id);
    if (gimpId === undefined) return this.closed(id);
    const dir = await this.deps.dir();
    const file = join(dir, `image-${id}.xcf`);
    const part = `${file}.part`;
    let reply: readonly Sexp[];
    try {
      reply = asList(await this.deps.call(`(br-copy ${int(gimpId)} ${lit(part)})`), "copy");
    } catch (error) {
      await rm(part, { force: true });
      if (isBridgeError(error) && error.code === "DOCUMENT_NOT_FOUND") return this.closed(id);
      throw error;
    }
    // The change count when GIMP answered: a call that started since is not in this copy.
    const revision = tracked.revision;
    const bytes = (await stat(part)).size;
    const others = [...this.images.values()].reduce((sum, t) => sum + (t !== tracked && t.copy ? t.copy.bytes : 0), 0);
    if (others + bytes > this.settings.maxBytes) {
      await rm(part, { force: true });
      if (tracked.copy !== undefined) await rm(tracked.copy.file, { force: true });
      tracked.copy = undefined;
      this.deps.log?.warn({ actor: "host", editor: "gimp", documentId: id, bytes, maxBytes: this.settings.maxBytes }, "recovery copy over the disk budget: this image is lost if GIMP is");
      return;
    }
    await rename(part, file);
    const layers = new Map<number, number>();
    for (const entry of asList(reply[3] ?? [], "layer tattoos")) {
      const [layer, tattoo] = asList(entry, "layer tattoo");
      layers.set(asNumber(tattoo, "tattoo"), this.deps.ids.layers.out(asNumber(layer, "layer id")));
    }
    tracked.copy = {
      file,
      bytes,
      revision,
      dirty: asNumber(reply[0], "dirty flag") !== 0,
      path: asString(reply[1], "file name"),
      name: asString(reply[2], "image label"),
      layers,
      features: this.deps.sources.get(gimpId),
    };
    tracked.lastCopyAt = Date.now();
  }

  /** GIMP was lost: what can be reopened, and whether each copy holds the image's latest change. */
  lost(): void {
    const pending = this.pending ?? [];
    for (const [id, tracked] of this.images) {
      clearTimeout(tracked.timer);
      tracked.timer = undefined;
      if (tracked.copy !== undefined) pending.push({ id, copy: tracked.copy, origin: tracked.origin, current: tracked.copy.revision === tracked.revision });
      else if (tracked.origin !== undefined) pending.push({ id, copy: undefined, origin: tracked.origin, current: tracked.revision === 0 });
    }
    clearTimeout(this.everythingTimer);
    this.everything = false;
    this.images.clear();
    this.pending = pending;
  }

  /**
   * In a freshly started GIMP after a loss: reopens every copy under its old ids. Answers GIMP's id of the image
   * whose adapter id is `active`, when it came back.
   */
  async reopen(active: number | undefined): Promise<number | undefined> {
    const pending = this.pending;
    this.pending = undefined;
    this.deps.ids.images.restart();
    this.deps.ids.layers.restart();
    if (pending === undefined || pending.length === 0) return undefined;
    // Wait for a copy that was being written when GIMP died to fail before reopening.
    await this.chain;
    const documents: Array<EditorRecovery["documents"][number]> = [];
    let activeGimpId: number | undefined;
    for (const { id, copy, origin, current } of pending.sort((a, b) => a.id - b.id)) {
      try {
        const reply = copy !== undefined ? await this.reopenCopy(copy) : await this.remake(origin!);
        if (reply === undefined) {
          this.deps.log?.warn({ actor: "host", editor: "gimp", documentId: id }, "the file an image was opened from changed or is gone: the image is lost");
          documents.push({ documentId: id, recovered: false, lost: ["document"] });
          continue;
        }
        const [image, tattoos] = asList(reply, "reopened image");
        const gimpId = asNumber(image, "image id");
        this.deps.ids.images.keep(id, gimpId);
        const layers = copy?.layers ?? origin!.layers;
        for (const [layer, tattoo] of parseTattoos(tattoos ?? [])) {
          const old = layers.get(tattoo);
          if (old !== undefined) this.deps.ids.layers.keep(old, layer);
        }
        const features = copy !== undefined ? copy.features : origin!.features;
        if (features !== undefined) this.deps.sources.set(gimpId, features);
        if (id === active) activeGimpId = gimpId;
        // The reopened image is its copy (or its origin): a later loss reopens the same unless a call changes it.
        this.images.set(id, { revision: 0, copy: copy === undefined ? undefined : { ...copy, revision: 0 }, origin, lastCopyAt: Date.now(), timer: undefined });
        documents.push({ documentId: id, recovered: true, lost: current ? [] : ["changes"] });
      } catch (error) {
        if (isBridgeError(error) && (error.code === "HOST_UNAVAILABLE" || error.code === "TIMEOUT")) {
          // This GIMP is gone too: the next one reopens every copy (this start fails and the bridge retries).
          this.pending = pending;
          this.images.clear();
          throw error;
        }
        this.deps.log?.warn({ actor: "host", editor: "gimp", documentId: id, err: String(error) }, "a recovery copy could not be reopened");
        if (copy !== undefined) await rm(copy.file, { force: true });
        documents.push({ documentId: id, recovered: false, lost: ["document"] });
      }
    }
    this.report = { documents };
    this.deps.log?.info(
      { actor: "host", editor: "gimp", recoveredDocumentIds: documents.filter((d) => d.recovered).map((d) => d.documentId) },
      "GIMP images reopened from their recovery copies and origins",
    );
    return activeGimpId;
  }

  /** Loads a copy as the image it was: `(img ((layer tattoo) ...))`. */
  private reopenCopy(copy: Copy): Promise<Sexp> {
    return this.deps.call(`(br-reopen ${lit(copy.file)} ${lit(copy.path)} ${lit(copy.name)} ${copy.dirty ? 1 : 0})`);
  }

  /** Makes an image again from its origin: `(img ((layer tattoo) ...))`, or undefined when its file changed. */
  private remake(origin: Origin): Promise<Sexp | undefined> {
    if (origin.from.kind === "file") return this.deps.reopenFile(origin.from.path, origin.from.identity);
    return this.deps.call(`(br-remade ${origin.from.form})`);
  }

  /** What the last restart brought back (adapter ids), once. */
  take(): EditorRecovery | undefined {
    const report = this.report;
    this.report = undefined;
    return report;
  }

  /** The host closes: no more copies (the folder goes with GIMP's temporary root). */
  stop(): void {
    this.stopped = true;
    for (const tracked of this.images.values()) clearTimeout(tracked.timer);
    clearTimeout(this.everythingTimer);
    this.images.clear();
    this.pending = undefined;
  }
}
