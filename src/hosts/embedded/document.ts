import type { LayerEffectsInfo, PatternInfo } from "ag-psd";
import type { HostRect } from "../../protocol/index.js";
import type { FileFeatures } from "../../files/index.js";
import type { PsdDocumentRecord, PsdLayerRecord, RecordKind } from "./psd-records.js";
import type { PsdFileSource } from "./psd-file/index.js";
import type { Raster } from "./raster.js";
import { emptyRaster, solidRaster } from "./raster.js";

/** Fields every layer has. Opacity is a byte (0–255) because PSD stores a byte: round trips stay exact. */
export interface LayerCommon {
  readonly id: number;
  name: string;
  visible: boolean;
  /** 0–255; reported to clients as 0–100. */
  opacity: number;
  /** PSD blend mode name: `normal`, `multiply`, `screen`, `pass through` (groups), … */
  blendMode: string;
  /**
   * Clipped to the layer below it (a clipping mask): shown only where the nearest unclipped layer under it, its
   * base, has pixels, and with the base's opacity and blend mode. @default false
   */
  clipping?: boolean | undefined;
  /**
   * Fill opacity, 0–255: fades the layer's own pixels (Photoshop keeps it apart from opacity because it leaves the
   * layer's effects alone). Rendered on pixel layers; kept and saved on groups. @default 255
   */
  fillOpacity?: number | undefined;
  /**
   * Locked (Photoshop's "lock all": its pixels and position are protected). Edits of the layer's pixels, masks,
   * position, stacking, opacity, fill opacity and blend mode are refused while it, or a group holding it, is locked
   * (see `edits/locks.ts`); renaming, hiding, unlocking, duplicating and deleting it are not. Saved as the PSD's
   * protection flags. @default false
   */
  locked?: boolean | undefined;
  /**
   * The layer style (Photoshop's layer effects: shadows, glows, overlays, stroke, bevel) as the PSD records it, only
   * set when at least one effect is on. Only rendering reads it (`effects/`); saving writes `record`'s.
   */
  effects?: LayerEffectsInfo | undefined;
  /**
   * Where the layer's effects anchor the patterns they tile (Photoshop's effects reference point), in document
   * pixels. Only rendering reads it. @default { x: 0, y: 0 }
   */
  effectsOrigin?: { readonly x: number; readonly y: number } | undefined;
  /**
   * Layer mask (PSD user mask), on pixel layers and groups. A disabled mask is kept (and saved) but not rendered.
   * Replaced, never mutated in place.
   */
  mask?: LayerMask | undefined;
  /**
   * The layer's vector mask as pixels (Photoshop stores this rasterisation beside the path), multiplied with the
   * user mask when rendering. The path itself stays in `record`.
   */
  vectorMask?: LayerMask | undefined;
  /**
   * The vector mask path rasterised here, when the file's own rasterisation is not the path alone (Photoshop
   * multiplies it with the user mask when a layer has both, and some files cache none). Rendering uses it in
   * place of `vectorMask`; it is derived, never saved.
   */
  vectorShape?: LayerMask | undefined;
  /**
   * Knockout (PSD blending option): the layer punches through the layers below it inside its group down to the
   * group's backdrop. @default false
   */
  knockout?: boolean | undefined;
  /**
   * Channels the layer does not blend into (Photoshop's advanced blending with a channel unchecked), as the file
   * numbers them: 0 red, 1 green, 2 blue (0 the grey of a grayscale file). Rendered on RGB and grayscale documents
   * (see `channel-restrictions.ts`), kept and saved on every one. @default none
   */
  restrictedChannels?: readonly number[] | undefined;
  /**
   * A smart object's embedded file when `layer:replaceContents` gave it a new one (its `record.placedLayer.id`
   * names it): saved among the document's linked files. The file's own embedded files stay in the document record.
   */
  embeddedFile?: EmbeddedFile | undefined;
  /**
   * Everything the file's layer record held that this model does not own (text, smart object, effects, vector
   * mask path, adjustment, fill, artboard, blending ranges…), kept so that a save writes it back unchanged.
   */
  record?: PsdLayerRecord | undefined;
}

/** An embedded (linked) file of a smart object, as the PSD's linked files hold it. */
export interface EmbeddedFile {
  /** A UUID, which the layer's `placedLayer.id` names. */
  readonly id: string;
  readonly name: string;
  /** The four-letter file type (`png `, `JPEG`). */
  readonly type: string;
  readonly data: Uint8Array;
}

/** The layer comps of a document, as image resource 1065 holds them (each layer's own states are in its record's `comps`). */
export interface DocumentLayerComps {
  readonly list: ReadonlyArray<{ readonly id: number; readonly name: string; readonly comment?: string | undefined; readonly capturedInfo: number }>;
  readonly lastApplied?: number | undefined;
}

/**
 * A layer mask (PSD user mask): one byte per pixel, 0 hides and 255 shows the layer, in document coordinates.
 * Outside its rectangle every pixel takes `defaultColor`. Compositing multiplies the layer's alpha by it; the
 * layer's own pixels stay untouched, so the mask stays editable and round-trips through PSD.
 */
export interface LayerMask {
  readonly x: number;
  readonly y: number;
  readonly width: number;
  readonly height: number;
  /** `width × height` bytes, row-major. */
  readonly data: Uint8Array;
  readonly defaultColor: 0 | 255;
  /** Kept and saved, not rendered. @default false */
  readonly disabled?: boolean | undefined;
  /** How far the mask hides, 0–255: 255 hides fully where it is black, 128 half. @default 255 */
  readonly density?: number | undefined;
  /** Feather radius in pixels Photoshop applies when rendering (kept; rendered as a blur). @default 0 */
  readonly feather?: number | undefined;
  /**
   * Not linked to the layer: moving the layer leaves the mask where it is (the PSD mask's "position relative to
   * layer" flag). @default false
   */
  readonly unlinked?: boolean | undefined;
}

/**
 * Kinds of non-group layers: `pixel` and `background` hold pixels; the others are PSD layers whose content
 * (text, a smart object, a vector shape, a fill, an adjustment) lives in their `record` and which render from
 * the pixels the file cached (an adjustment has none: it changes what is below it). A pixel edit turns them into
 * `pixel` layers.
 */
export type PixelLayerKind = "pixel" | "background" | RecordKind;

/**
 * A layer of pixels. The buffer sits at `left/top` in document coordinates, may extend past the canvas and may be
 * empty (0×0). The buffer is replaced, never mutated in place, so derived values can be cached per buffer.
 */
export interface PixelLayer extends LayerCommon {
  readonly kind: PixelLayerKind;
  left: number;
  top: number;
  width: number;
  height: number;
  data: Uint8ClampedArray;
}

/** A layer group; `children` are listed top-most first, like a Layers panel. */
export interface GroupLayer extends LayerCommon {
  readonly kind: "group";
  children: EmbeddedLayer[];
}

export type EmbeddedLayer = PixelLayer | GroupLayer;

/** What a document holds besides its identity; produced by the sample builder and the file readers. */
export interface DocumentContent {
  width: number;
  height: number;
  resolution: number;
  /** Top-most first. */
  layers: EmbeddedLayer[];
  /** Next unused layer id; ids are never reused within a document. */
  nextLayerId: number;
  /** Active layer ids; empty when none. */
  activeLayerIds: number[];
  /**
   * The document's global light (degrees), which layer effects set to "use global light" take their angle from.
   * @default { angle: 120, altitude: 30 } (Photoshop's)
   */
  globalLight?: { readonly angle: number; readonly altitude: number } | undefined;
  /**
   * The layer comps (saved states of the layers' visibility, position and appearance). Replaced, never mutated.
   * Undefined: none was ever made or read (a save then writes none).
   */
  layerComps?: DocumentLayerComps | undefined;
  /** Patterns stored in the file (RGBA tiles), which pattern overlays and strokes name by id. */
  patterns?: readonly PatternInfo[] | undefined;
  /** A grayscale document (its pixels carry the grey level in all three channels): adjustments work on grey. */
  grayscale?: boolean | undefined;
  /**
   * The colour mode and depth of the file the document was opened from, when it was not 8-bit RGB: the colours in
   * its layer records (fills, adjustments) are in that mode's terms.
   */
  sourceColor?: SourceColor | undefined;
}

/** A file's colour mode and depth (see {@link DocumentContent.sourceColor}). */
export interface SourceColor {
  /** `rgb`, `grayscale`, `cmyk`, `lab`, `indexed`, `bitmap` or `duotone`. */
  readonly mode: string;
  /** Bits per channel: 1, 8, 16 or 32. */
  readonly depth: number;
}

/** The file a document was opened from: what it held that the embedded model does not keep. */
export interface DocumentSource {
  readonly psb: boolean;
  readonly features: FileFeatures;
  /** The file's document-level records (image resources, patterns, global layer info…), kept for saving. */
  readonly record?: PsdDocumentRecord | undefined;
  /** A PSD's mode, depth and original bytes, for saving it back in its mode (see `psd-file/`). */
  readonly psdFile?: PsdFileSource | undefined;
}

/** One open document. */
export interface EmbeddedDocument extends DocumentContent {
  readonly id: number;
  name: string;
  isDirty: boolean;
  /** Counts the edits of pixels and layers since the document opened: a save checked at one revision writes that one. */
  revision: number;
  filePath: string | undefined;
  /**
   * What the file the document was opened from held that this model does not keep (text layers, ICC profile…).
   * It stays with the document until it is closed: every save is compared with what was opened.
   */
  readonly source?: DocumentSource | undefined;
  /** Rectangular selection in document pixels, always inside the canvas; `null` when nothing is selected. */
  selection: HostRect | null;
}

/** Builds document content while handing out layer ids in creation order. */
export class ContentBuilder {
  private nextId = 1;

  constructor(
    private readonly width: number,
    private readonly height: number,
    private readonly resolution = 72,
  ) {}

  /** A pixel layer of `raster` placed at `left/top`. */
  pixel(
    name: string,
    raster: Raster,
    options: { left?: number; top?: number; kind?: PixelLayer["kind"]; opacity?: number; blendMode?: string; visible?: boolean } = {},
  ): PixelLayer {
    return {
      id: this.nextId++,
      kind: options.kind ?? "pixel",
      name,
      visible: options.visible ?? true,
      opacity: options.opacity ?? 255,
      blendMode: options.blendMode ?? "normal",
      left: options.left ?? 0,
      top: options.top ?? 0,
      width: raster.width,
      height: raster.height,
      data: raster.data,
    };
  }

  /** A group; `children` top-most first. Ids of children created before the group are smaller, which is fine. */
  group(name: string, children: EmbeddedLayer[], options: { opacity?: number; blendMode?: string } = {}): GroupLayer {
    return {
      id: this.nextId++,
      kind: "group",
      name,
      visible: true,
      opacity: options.opacity ?? 255,
      blendMode: options.blendMode ?? "pass through",
      children,
    };
  }

  /** The finished content; `layers` top-most first. */
  build(layers: EmbeddedLayer[], activeLayerIds: number[]): DocumentContent {
    return {
      width: this.width,
      height: this.height,
      resolution: this.resolution,
      layers,
      nextLayerId: this.nextId,
      activeLayerIds,
    };
  }
}

/**
 * Content of a new document: one `Background` layer when the colour is opaque, else one `Layer 1` (empty when
 * fully transparent), as an editor's "New document" does.
 */
export function newDocumentContent(width: number, height: number, color: readonly [number, number, number, number]): DocumentContent {
  const builder = new ContentBuilder(width, height);
  const layer =
    color[3] === 255
      ? builder.pixel("Background", solidRaster(width, height, color), { kind: "background" })
      : builder.pixel("Layer 1", color[3] === 0 ? emptyRaster(0, 0) : solidRaster(width, height, color));
  return builder.build([layer], [layer.id]);
}

/** Percent (0–100, at most one decimal) of a 0–255 opacity byte. */
export function opacityPercent(byte: number): number {
  return Math.round((byte / 255) * 1000) / 10;
}

/** The 0–255 byte of a percentage (0–100): how opacities, fill opacities and mask densities are kept. */
export function percentByte(percent: number): number {
  return Math.round((percent / 100) * 255);
}
