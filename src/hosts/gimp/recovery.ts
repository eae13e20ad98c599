import { rename, rm, stat } from "node:fs/promises";
import { join } from "node:path";
import type { FileFeatures } from "../../files/index.js";
import type { Logger } from "../../logger.js";
import { isBridgeError } from "../../protocol/index.js";
import type { EditorRecovery } from "../host.js";
import type { GimpIds } from "./ids.js";
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

/** One image the adapter knows changed. */
interface Tracked {
  /** Bumped when a call that may change the image starts and when it ends. */
  revision: number;
  copy: Copy | undefined;
  lastCopyAt: number;
  timer: NodeJS.Timeout | undefined;
}

/**
 * Recovery copies of a supervised GIMP's images: every image a call changed is written as XCF (`gimp-xcf-save`,
 * which leaves the image's file name and dirty flag alone) into a private folder, once its changes settle and at
 * most every `intervalMs`, within `maxBytes` on disk. When GIMP is lost, `reopen()` loads every copy into the new
 * GIMP, restores file name, name and dirty flag (XCF keeps the layers, their tattoos, the active layer and the
 * selection), and maps the new image and layer ids back to the old ones (layers by tattoo).
 */
export class GimpRecovery {
  private readonly images = new Map<number, Tracked>();
  /** Copies run one at a time, each one Script-Fu call queued like any other. */
  private chain: Promise<void> = Promise.resolve();
  /** Set when a script ran: any image may have changed, so every open one is looked at. */
  private everything = false;
  private everythingTimer: NodeJS.Timeout | undefined;
  /** After a loss: the copies to reopen and whether each holds the image's latest change. */
  private pending: Array<{ id: number; copy: Copy; current: boolean }> | undefined;
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
      tracked = { revision: 0, copy: undefined, lastCopyAt: 0, timer: undefined };
      this.images.set(id, tracked);
    }
    tracked.revision++;
    this.schedule(id, tracked);
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
      if (tracked.copy !== undefined) pending.push({ id, copy: tracked.copy, current: tracked.copy.revision === tracked.revision });
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
    for (const { id, copy, current } of pending.sort((a, b) => a.id - b.id)) {
      try {
        const [image, tattoos] = asList(
          await this.deps.call(`(br-reopen ${lit(copy.file)} ${lit(copy.path)} ${lit(copy.name)} ${copy.dirty ? 1 : 0})`),
          "reopened image",
        );
        const gimpId = asNumber(image, "image id");
        this.deps.ids.images.keep(id, gimpId);
        for (const entry of asList(tattoos ?? [], "layer tattoos")) {
          const [layer, tattoo] = asList(entry, "layer tattoo");
          const old = copy.layers.get(asNumber(tattoo, "tattoo"));
          if (old !== undefined) this.deps.ids.layers.keep(old, asNumber(layer, "layer id"));
        }
        if (copy.features !== undefined) this.deps.sources.set(gimpId, copy.features);
        if (id === active) activeGimpId = gimpId;
        // The reopened image is its copy: a later loss reopens the same copy unless a call changes it.
        this.images.set(id, { revision: 0, copy: { ...copy, revision: 0 }, lastCopyAt: Date.now(), timer: undefined });
        documents.push({ documentId: id, recovered: true, lost: current ? [] : ["changes"] });
      } catch (error) {
        if (isBridgeError(error) && (error.code === "HOST_UNAVAILABLE" || error.code === "TIMEOUT")) {
          // This GIMP is gone too: the next one reopens every copy (this start fails and the bridge retries).
          this.pending = pending;
          this.images.clear();
          throw error;
        }
        this.deps.log?.warn({ actor: "host", editor: "gimp", documentId: id, err: String(error) }, "a recovery copy could not be reopened");
        await rm(copy.file, { force: true });
        documents.push({ documentId: id, recovered: false, lost: ["document"] });
      }
    }
    this.report = { documents };
    this.deps.log?.info(
      { actor: "host", editor: "gimp", recoveredDocumentIds: documents.filter((d) => d.recovered).map((d) => d.documentId) },
      "GIMP images reopened from their recovery copies",
    );
    return activeGimpId;
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
