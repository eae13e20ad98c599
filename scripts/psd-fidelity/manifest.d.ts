/** Types of manifest.js: the corpus manifest. */
import type { CompositeStatus, OpenOutcome, RoundTripStatus } from "./compare.js";

export interface ManifestEntry {
  readonly path: string;
  readonly source: { repo: string; commit: string; path: string };
  readonly licence: string;
  readonly size: number;
  readonly sha256: string;
  readonly version: "PSD" | "PSB";
  readonly width: number;
  readonly height: number;
  readonly depth: number;
  readonly colourMode: string;
  readonly channels: number;
  readonly exercises: string[];
  expected?: { open: OpenOutcome; composite: CompositeStatus | "n/a"; roundTrip: RoundTripStatus | "n/a" };
}
export interface Manifest {
  readonly description: string;
  readonly sources: Record<string, { repo: string; commit: string; root: string; licence: string; copyright: string[] }>;
  readonly files: ManifestEntry[];
}
export declare const CORPUS_DIR: string;
export declare const MANIFEST_PATH: string;
export declare function loadManifest(path?: string): Promise<Manifest>;
export declare function saveManifest(manifest: Manifest, path?: string): Promise<void>;
export declare function corpusFile(entry: Pick<ManifestEntry, "path">): string;
export declare function corpusPaths(): Promise<string[]>;
export declare function sha256(bytes: Uint8Array): string;
export declare function describeFile(bytes: Uint8Array): Omit<ManifestEntry, "path" | "source" | "licence" | "expected">;
