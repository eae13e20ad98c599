import { runClientCommand } from "../../src/client/cli.js";

/** What one client command printed, and its exit status. */
export interface CommandRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs a client CLI command in-process (`image-editor-bridge <argv…>`), collecting what it prints. */
export async function runCommand(argv: string[], env: Record<string, string> = {}, signal?: AbortSignal): Promise<CommandRun> {
  let stdout = "";
  let stderr = "";
  const code = await runClientCommand(argv, {
    stdout: { write: (text: string) => (stdout += text) },
    stderr: { write: (text: string) => (stderr += text) },
    env,
    signal: signal ?? new AbortController().signal,
  });
  return { code, stdout, stderr };
}
