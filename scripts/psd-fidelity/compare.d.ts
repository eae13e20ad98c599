/** Types of compare.js: image and layer tree comparison, statuses and their thresholds. */
import type { HostLayer } from "../../src/protocol/index.js";
import type { RecordLayer } from "./records.js";

export type OpenOutcome = "opens" | "refused";
export type CompositeStatus = "identical" | "close" | "different" | "wrong";
export type RoundTripStatus = "lossless" | "refused" | "failed" | "changed";
export declare const OPEN_OUTCOMES: readonly OpenOutcome[];
export declare const COMPOSITE_STATUSES: readonly CompositeStatus[];
export declare const ROUND_TRIP_STATUSES: readonly RoundTripStatus[];
export declare const THRESHOLDS: Readonly<{ identicalMaxDiff: number; offBy: number; closeShare: number; closeRmse: number; differentShare: number }>;
export interface Rgba {
  readonly width: number;
  readonly height: number;
  readonly rgba: ArrayLike<number>;
}
export interface Comparison {
  readonly rmse: number;
  readonly share: number;
  readonly maxDiff: number;
  readonly sizeMismatch?: string;
}
export declare function compareImages(reference: Rgba, actual: Rgba): Comparison;
export declare function compositeStatus(comparison: Comparison): CompositeStatus;
export declare function isWorse(scale: readonly string[], recorded: string, now: string): boolean;
export declare function isBetter(scale: readonly string[], recorded: string, now: string): boolean;
export interface TreeComparison {
  structure: boolean;
  clipped: boolean;
  kinds: boolean;
  mismatches: string[];
}
export declare function compareTrees(expected: readonly RecordLayer[], actual: readonly HostLayer[]): TreeComparison;
export declare function structureOf(layers: readonly HostLayer[]): unknown[];
