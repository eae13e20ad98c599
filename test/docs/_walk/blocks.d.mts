/** Types of blocks.mjs (plain JavaScript, so the walk runs under Node 20 without a build). */
export interface ShellCommand {
  /** The literal text a reader would paste, continuation lines included. */
  readonly text: string;
  /** The command without its trailing comment, whitespace collapsed: how the walk's plan names it. */
  readonly key: string;
}
export interface ShellBlock {
  /** 1-based line of the opening fence. */
  readonly line: number;
  readonly info: string;
  /** The reason of a `<!-- walk: form-only (reason) -->` marker right above the fence. */
  readonly formOnly: string | undefined;
  readonly commands: ShellCommand[];
}
export interface PlanStep {
  readonly cmd?: string;
  readonly setup?: string;
  readonly form?: unknown;
  /** The step installs from npm's cache offline: its page walks after the runner has filled the cache. */
  readonly needsNpmCache?: boolean;
  readonly [key: string]: unknown;
}
export declare function shellBlocks(text: string): ShellBlock[];
export declare function keyOf(text: string): string;
export declare function coverageProblems(pages: Array<{ path: string; text: string }>, plan: Record<string, readonly PlanStep[]>): string[];
