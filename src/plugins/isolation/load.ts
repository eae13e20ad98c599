import { pathToFileURL } from "node:url";
import type { Limits } from "../../limits.js";
import { shareBridgeModules } from "../_internal/imports.js";
import { loadFailure, type PluginManifest } from "../manifest.js";
import type { Supervised } from "../plugin.machine.js";
import { definitionOf } from "./definition.js";
import { WorkerLink } from "./link.js";
import type { IsolationMode } from "./protocol.js";
import { proxyDefinition } from "./proxy.js";

/** Where a plugin's code runs: the operator's choice for every plugin, else its manifest's, else a worker thread. */
export function isolationOf(manifest: PluginManifest, operator: IsolationMode | undefined): IsolationMode {
  return operator ?? manifest.isolation ?? "worker";
}

/** What importing a plugin produced: the value its module exports and, when isolated, the worker running it. */
export interface ImportedPlugin {
  readonly value: unknown;
  readonly supervised?: Supervised | undefined;
}

/**
 * Imports a plugin's module where its isolation says: in-process (`none`; `generation` > 0 busts the module cache
 * of the entry file for a reload), or in a worker thread (`worker`) or a child process (`process`), where the value
 * is a stand-in definition.
 * @throws BridgeError `PLUGIN_LOAD_FAILED` (phase `import`, `definition` or `isolation`).
 */
export async function importPlugin(
  manifest: PluginManifest,
  mode: IsolationMode,
  env: { readonly limits: Limits; mainTypes(): readonly string[] },
  dir: string,
  generation: number,
): Promise<ImportedPlugin> {
  if (mode === "none") {
    try {
      shareBridgeModules();
      const url = pathToFileURL(manifest.main);
      if (generation > 0) url.searchParams.set("reload", String(generation));
      return { value: definitionOf((await import(url.href)) as Record<string, unknown>) };
    } catch (error) {
      throw loadFailure("import", error instanceof Error ? error.message : String(error), { dir });
    }
  }
  const link = new WorkerLink({ mode, entry: manifest.main, mainTypes: env.mainTypes(), limits: env.limits });
  try {
    const { id, events } = await link.start();
    // An id that is not a string is refused by the host's id check, as in-process.
    return { value: proxyDefinition(id as string, Array.isArray(events) ? (events as string[]) : [], link), supervised: link };
  } catch (error) {
    await link.stop();
    const phase = (error as { phase?: string }).phase ?? "import";
    throw loadFailure(phase, error instanceof Error ? error.message : String(error), { dir, isolation: mode });
  }
}
