/** Types of report.js: the ratchet and the fidelity table. */
import type { Measurement } from "./measure.js";
import type { ManifestEntry } from "./manifest.js";

export interface Row {
  readonly entry: ManifestEntry;
  readonly result: Measurement;
}
export declare function ratchet(expected: ManifestEntry["expected"], result: Measurement): { worse: string[]; better: string[] };
export declare function outcomesOf(result: Measurement): NonNullable<ManifestEntry["expected"]>;
export declare function summarise(rows: readonly Row[]): Record<string, unknown>;
export declare function summaryTable(summary: ReturnType<typeof summarise>): string;
export declare function fileTable(rows: readonly Row[]): string;
