/** Kills to run when this process exits: every editor process the bridge started, so none outlives it. */
const kills = new Set<() => void>();
let installed = false;

/**
 * Registers `kill` to run (synchronously) when this process exits, until the returned function is called because
 * what it kills ended by itself.
 */
export function killOnExit(kill: () => void): () => void {
  if (!installed) {
    installed = true;
    process.once("exit", () => {
      for (const each of kills) each();
    });
  }
  kills.add(kill);
  return () => kills.delete(kill);
}
