import { watch, type FSWatcher } from "node:fs";

/**
 * Quiet time after the last change in a plugin folder before it is reloaded: an editor's save or a build writes
 * several files in a burst, and one reload should follow, not one per file.
 */
export const PLUGIN_WATCH_DEBOUNCE_MS = 200;

export interface PluginWatcher {
  close(): void;
}

/**
 * Watches plugin folders (`--watch-plugins`, for development) and calls `changed(dir)` once per burst of changes.
 * `node_modules` and dot-files are ignored; a folder that cannot be watched is skipped.
 */
export function watchPlugins(dirs: readonly string[], changed: (dir: string) => void, debounceMs = PLUGIN_WATCH_DEBOUNCE_MS): PluginWatcher {
  const watchers: FSWatcher[] = [];
  const timers = new Map<string, NodeJS.Timeout>();
  for (const dir of dirs) {
    try {
      const watcher = watch(dir, { recursive: true, persistent: false }, (_event, file) => {
        const name = String(file ?? "");
        if (name.startsWith("node_modules") || name.split("/").some((part) => part.startsWith("."))) return;
        clearTimeout(timers.get(dir));
        timers.set(
          dir,
          setTimeout(() => {
            timers.delete(dir);
            changed(dir);
          }, debounceMs),
        );
      });
      watcher.on("error", () => watcher.close());
      watchers.push(watcher);
    } catch {
      // A folder that vanished or cannot be watched: it simply is not reloaded.
    }
  }
  return {
    close() {
      for (const watcher of watchers) watcher.close();
      for (const timer of timers.values()) clearTimeout(timer);
      timers.clear();
    },
  };
}
