/** Types of records.js: the layer tree as a PSD's layer records state it. */
export type RecordKind = "pixel" | "group" | "text" | "smartObject" | "adjustment" | "fill" | "shape";
export interface RecordLayer {
  readonly name: string;
  readonly kind: RecordKind;
  readonly visible: boolean;
  /** 0–255, as stored. */
  readonly opacity: number;
  readonly blendMode: string;
  readonly clipped: boolean;
  /** What else the record carries: mask, vectorMask, effects, knockout, artboard, fillOpacity, adjustment:…, fill:… */
  readonly features: string[];
  readonly children?: RecordLayer[];
}
export declare const BLEND_KEYS: Readonly<Record<string, string>>;
export declare const ADJUSTMENT_KEYS: Readonly<Record<string, string>>;
export declare const FILL_KEYS: Readonly<Record<string, string>>;
export declare function readLayerTree(bytes: Uint8Array): RecordLayer[];
