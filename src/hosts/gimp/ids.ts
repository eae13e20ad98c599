/**
 * The ids the GIMP adapter shows for images and layers, kept stable across GIMP restarts.
 *
 * A GIMP process numbers images and items from 1 and a reopened recovery copy gets new numbers, so the adapter
 * keeps one space per kind of id. Until the first restart every id is GIMP's own. A restart moves an offset past
 * every id shown so far: the images and layers reopened from copies are mapped explicitly back to their old ids,
 * and every other id of the new process is shown as its GIMP id plus the offset, which no old id can equal.
 */
export class IdSpace {
  private readonly shown = new Map<number, number>();
  private readonly native = new Map<number, number>();
  private offset = 0;
  /** The largest id shown so far. */
  private highest = 0;

  /** The id shown for GIMP's `gimpId`. */
  out(gimpId: number): number {
    if (gimpId < 0) return gimpId; // "none" (-1) passes unchanged
    const id = this.shown.get(gimpId) ?? gimpId + this.offset;
    if (id > this.highest) this.highest = id;
    return id;
  }

  /** GIMP's id of the shown `id`, or undefined when no live image or item of this process has it. */
  in(id: number): number | undefined {
    // Only ids shown move the offset: an id a client makes up must not push later ids out of the safe integers.
    const mapped = this.native.get(id);
    if (mapped !== undefined) return mapped;
    const gimpId = id - this.offset;
    // An id below the offset belonged to a lost process; a GIMP id mapped to an old id is shown only as that one.
    if (gimpId < 1 || this.shown.has(gimpId)) return undefined;
    return gimpId;
  }

  /** A new GIMP process: ids its predecessor showed are never reused for its own. */
  restart(): void {
    this.offset = this.highest;
    this.shown.clear();
    this.native.clear();
  }

  /** Shows GIMP's `gimpId` of the new process as the old `id` (an image or layer reopened from its copy). */
  keep(id: number, gimpId: number): void {
    this.shown.set(gimpId, id);
    this.native.set(id, gimpId);
  }

  /** Forgets an explicit mapping (the image was closed). */
  drop(id: number): void {
    const gimpId = this.native.get(id);
    if (gimpId === undefined) return;
    this.native.delete(id);
    this.shown.delete(gimpId);
  }
}

/** The adapter's two id spaces. */
export interface GimpIds {
  readonly images: IdSpace;
  readonly layers: IdSpace;
}
