/*
 * `getServerInfo`'s answer. Clients call it as a ping and to learn what each editor can do, and most of the answer
 * (the editors' edit capabilities above all) never changes while the bridge runs, so the answer and its JSON text
 * are kept and made again only when something in them changed: an editor's state, queue, restarts, documents or
 * clients, the loaded plugins. Serializing the capabilities on every call was a tenth of the bridge's work per call
 * when one client called it in a loop.
 */
import { keepEncoding } from "../methods/index.js";
import { PROTOCOL_VERSION, type EditorSummary, type PluginInfo, type ServerInfo } from "../protocol/index.js";
import { PACKAGE } from "../version.js";
import type { StatusSources } from "./status.js";

type Sources = Pick<StatusSources, "pool" | "plugins" | "files" | "cluster">;

/** Whether two lists of flat records hold the same values (nested values compared by reference). */
function sameRecords(a: readonly object[], b: readonly object[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    const x = a[i] as Record<string, unknown>;
    const y = b[i] as Record<string, unknown>;
    const keys = Object.keys(x);
    if (keys.length !== Object.keys(y).length) return false;
    for (const key of keys) if (x[key] !== y[key]) return false;
  }
  return true;
}

/** `getServerInfo`'s answer, kept (frozen, with its JSON text) until what it shows changes. */
export class ServerInfoAnswer {
  private kept: { info: ServerInfo; editors: EditorSummary[]; plugins: PluginInfo[]; roots: readonly string[] | null } | undefined;

  constructor(
    private readonly sources: Sources,
    private readonly editorKind: string,
  ) {}

  /** The answer as of now: the kept one when nothing in it changed, else a new one. */
  current(): ServerInfo {
    const { pool, plugins, files, cluster } = this.sources;
    const loaded = plugins.list();
    const roots = files.policy.roots;
    const kept = this.kept;
    // A cluster's view of its members changes without the bridge noticing: made anew on every call.
    if (kept !== undefined && cluster === undefined && kept.roots === roots && sameRecords(kept.plugins, loaded) && pool.summariesMatch(kept.editors)) return kept.info;
    const editors = pool.summaries();
    const hostVersion = pool.first.session.hostVersion;
    const info: ServerInfo = {
      name: PACKAGE.name,
      version: PACKAGE.version,
      protocolVersion: PROTOCOL_VERSION,
      editor: this.editorKind,
      editors,
      plugins: loaded,
      filesRoots: roots === null ? null : [...roots],
      ...(hostVersion !== undefined ? { hostVersion } : {}),
      ...(cluster !== undefined ? { cluster: cluster.info() } : {}),
      // Repeats `hostVersion` for clients of the Generator bridge service.
      ...(hostVersion !== undefined ? { psVersion: hostVersion } : {}),
    };
    this.kept = { info: keepEncoding(info), editors, plugins: loaded, roots };
    return info;
  }
}
