/** Types of measure.js: one corpus file through an editor. */
import type { HostAdapter, HostCallContext } from "../../src/hosts/host.js";
import type { CompositeStatus, OpenOutcome, RoundTripStatus, TreeComparison } from "./compare.js";

export interface Refusal {
  readonly code: string;
  readonly reason: string;
  /** A BridgeError code with words that say why. */
  readonly named: boolean;
}
export interface Measurement {
  readonly open: OpenOutcome;
  readonly refusal?: Refusal;
  readonly composite: { status: CompositeStatus | "n/a"; rmse?: number; share?: number; maxDiff?: number; problem?: string };
  readonly tree?: TreeComparison | { error: string };
  readonly roundTrip: { status: RoundTripStatus | "n/a"; wouldLose?: string[]; problem?: string };
  readonly reference: { grayscale?: boolean; hasAlpha?: boolean; notes?: string[]; error?: string };
  readonly ms: number;
}
export declare function decodeRgba(bytes: Uint8Array): Promise<{ width: number; height: number; rgba: Buffer }>;
export declare function refusalOf(error: unknown): Refusal;
export declare function measureFile(host: HostAdapter, ctx: HostCallContext, file: string, options: { workDir: string }): Promise<Measurement>;
