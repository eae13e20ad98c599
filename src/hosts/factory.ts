import type { Logger } from "../logger.js";
import { BridgeError } from "../protocol/index.js";
import type { GimpHostOptions } from "./gimp/index.js";
import type { HostAdapter } from "./host.js";
import type { PhotoshopLimits } from "./photoshop/index.js";


/** Where one Photoshop listens for Remote Connections. */
export interface PhotoshopAddress {
  readonly host: string;
  readonly port: number;
}

/** The Photoshops of a pool: one editor per machine, all reached with one password. */
export interface PhotoshopPoolOptions {
  readonly hosts: readonly PhotoshopAddress[];
  /** The Remote Connections password of every host; never logged. */
  readonly password: string;
  /** Overrides of `PHOTOSHOP_LIMITS` for every host. */
  readonly limits?: Partial<PhotoshopLimits> | undefined;
}

/** The GIMPs of a pool: the Script-Fu servers in `attach`, or (none given) GIMPs the bridge starts. */
export interface GimpPoolOptions extends Omit<GimpHostOptions, "attach" | "sample" | "logger"> {
  /** `host:port` of Script-Fu servers already running, one editor each. @default [] (start our own) */
  readonly attach?: readonly string[] | undefined;
}

interface PoolCommon {
  /**
   * How many editors. GIMP without `attach`: how many `gimp-console` processes to start and supervise, each on its
   * own Script-Fu port. With attached servers or Photoshop hosts there is one editor per server, and `editors`,
   * when given, must equal their number.
   * @default 1, or the number of servers given
   */
  readonly editors?: number | undefined;
  /**
   * Build the sample document in the first GIMP started by the bridge (never in an attached GIMP: its images are
   * the user's; Photoshop shows what it has open).
   */
  readonly sample: boolean;
  readonly logger: Logger;
}

/** Options of {@link createEditorHosts}: the editor kind and how to reach (or run) each of its editors. */
export type EditorHostsOptions = PoolCommon &
  (
    | { readonly editor: "photoshop"; readonly photoshop: PhotoshopPoolOptions; readonly gimp?: GimpPoolOptions | undefined }
    | { readonly editor: "gimp"; readonly gimp: GimpPoolOptions; readonly photoshop?: PhotoshopPoolOptions | undefined }
  );

/**
 * Checks `editors` against the servers given: absent, it is their number; given, it must match it.
 * `what` names the servers in the message, e.g. "--gimp-attach servers".
 */
function poolSize(editors: number | undefined, servers: number, what: string): number {
  if (editors !== undefined && (!Number.isInteger(editors) || editors < 1)) {
    throw new BridgeError("BAD_REQUEST", `editors must be a positive integer, got ${editors}`, { details: { editors } });
  }
  if (servers === 0) return editors ?? 1;
  if (editors !== undefined && editors !== servers) {
    throw new BridgeError("BAD_REQUEST", `editors is ${editors} but ${servers} ${what} were given: one editor runs per server`, {
      details: { editors, servers },
    });
  }
  return servers;
}

/**
 * Creates the editors of a third-party editor pool, in order (the bridge names them `<kind>-1`, `<kind>-2`, …).
 * Nothing starts here: each GIMP starts, and each Photoshop is reached, when its host session connects. Loaded on
 * demand so the embedded editor's start pays nothing for the others.
 *
 * @example
 * const hosts = await createEditorHosts({ editor: "gimp", editors: 2, gimp: { binary: "gimp-console-2.10" }, sample: true, logger });
 * const bridge = createBridge({ hosts });
 */
export async function createEditorHosts(options: EditorHostsOptions): Promise<HostAdapter[]> {
  const log = (kind: string, n: number): Logger => options.logger.child({ editorId: `${kind}-${n}` });
  if (options.editor === "photoshop") {
    const { hosts, password, limits } = options.photoshop;
    if (hosts.length === 0) throw new BridgeError("BAD_REQUEST", "photoshop.hosts names no Photoshop");
    poolSize(options.editors, hosts.length, "Photoshop hosts");
    const { createPhotoshopHost } = await import("./photoshop/index.js");
    return hosts.map((address, i) => createPhotoshopHost({ ...address, password, limits, logger: log("photoshop", i + 1) }));
  }
  const { attach = [], ...gimp } = options.gimp;
  const count = poolSize(options.editors, attach.length, "attached GIMP servers");
  const { createGimpHost } = await import("./gimp/index.js");
  if (attach.length > 0) {
    return attach.map((server, i) => createGimpHost({ ...gimp, attach: server, sample: false, logger: log("gimp", i + 1) }));
  }
  return Array.from({ length: count }, (_, i) =>
    createGimpHost({ ...gimp, attach: undefined, sample: options.sample && i === 0, logger: log("gimp", i + 1) }),
  );
}
