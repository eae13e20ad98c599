import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Subject, type Observable } from "rxjs";
import { DEFAULT_MAX_OPEN_FILE_BYTES, type FileAccess, type FileFeatures, type Filesystem } from "../../files/index.js";
import { isLoopbackHost } from "../../loopback.js";
import { BridgeError, type ErrorCode, isBridgeError } from "../../protocol/index.js";
import type { HostCallContext, HostInfo } from "../host.js";
import { GimpClient, type ScriptOutcome } from "./client.js";
import { DEFAULT_LIMITS } from "../../limits.js";
import type { GimpIds } from "./ids.js";
import { IdSpace } from "./ids.js";
import { DEFAULT_GIMP_CALL_TIMEOUT_MS, POLL_TIMEOUT_MS } from "./limits.js";
import type { GimpHostOptions } from "./options.js";
import { sameIdentity, type ImageOrigin } from "./origins.js";
import { GimpRecovery } from "./recovery.js";
import { CLOSE_ALL_SCRIPT, SAMPLE_SCRIPT } from "./sample.js";
import { int, lit, type Sexp } from "./scheme.js";
import { readClientFile, staged } from "./staging.js";
import { GimpSupervisor } from "./supervisor.js";
import type { Endpoint } from "./wire.js";

/**
 * One GIMP as the operations see it: calls with deadlines, a shared exchange directory, and the little state the
 * bridge keeps beside GIMP's own (the active image, what opened files held). Everything is reset when GIMP goes
 * away: a restarted GIMP has no images and restarts its ids.
 */
export interface GimpSession {
  /** Where GIMP opens and writes paths: `remote` when attached to a GIMP on another machine. */
  readonly filesystem: Filesystem;
  /** The document the bridge treats as active: GIMP without a display has no focus of its own. */
  activeImage: number | undefined;
  /** What the file each image was opened from held (for the no-silent-loss rule), by image id. */
  readonly sources: Map<number, FileFeatures>;
  /** How each image a call opened or made came to be, by image id (recovery makes an unchanged one again from it). */
  readonly origins: Map<number, ImageOrigin>;
  /** The adapter's own deadline of one call. */
  readonly callTimeoutMs: number;
  /** Largest client file GIMP is given to open (the bridge reads it whole to stage it). */
  readonly maxSourceBytes: number;
  /** The files roots in force (the bridge's, once it handed them over), or null when unconfined. */
  roots(): readonly string[] | null;
  /** Evaluates a form for a call (its signal, the adapter's deadline); `ctx` is absent for event reads. */
  call(ctx: HostCallContext | undefined, form: string, errorCode?: ErrorCode): Promise<Sexp>;
  /** Evaluates a user script with its own deadline, answering its output and value. */
  run(ctx: HostCallContext, form: string, timeoutMs: number): Promise<ScriptOutcome>;
  /**
   * The Scheme expression of the image a call targets: `documentId`, or (absent) the bridge's active image while
   * it is open, else GIMP's newest (`br-pick`, which fails `NO_DOCUMENT` when none is open).
   */
  image(documentId: number | undefined): string;
  /** Runs `use` with a fresh path in the exchange directory and removes the file afterwards. */
  scratch<T>(ext: string, use: (file: string) => Promise<T>): Promise<T>;
  /** The image and layer ids the adapter shows, stable across GIMP restarts (GIMP's own until the first one). */
  readonly ids: GimpIds;
  /** Recovery copies of the images calls changed; absent when attached (the bridge never restarts that GIMP). */
  readonly recovery: GimpRecovery | undefined;
}

/** The session plus the connection's lifecycle, which only the adapter's assembly sees. */
export interface GimpConnection extends GimpSession {
  readonly lost$: Observable<Error>;
  /** Process id of the supervised GIMP (undefined when attached or not running). */
  readonly pid: number | undefined;
  /** The Script-Fu endpoint in use. */
  readonly endpoint: Endpoint | undefined;
  connect(): Promise<HostInfo>;
  close(): Promise<void>;
  /** True while calls are queued or GIMP is away: an event poll would only wait behind them. */
  busy(): boolean;
  /** One event poll, with the poll's short deadline. */
  poll(form: string): Promise<Sexp>;
  /** The bridge's file rules, which the session then keeps to. */
  useFileAccess(files: FileAccess): void;
}

/** Parses `host:port` of `--gimp-attach`. */
export function parseAttach(value: string): Endpoint {
  const match = /^(.+):(\d{1,5})$/.exec(value.trim());
  const port = Number(match?.[2]);
  if (!match || port < 1 || port > 65_535) {
    throw new BridgeError("BAD_REQUEST", `--gimp-attach wants host:port, got "${value}"`, { details: { attach: value } });
  }
  return { host: match[1]!.replace(/^\[(.*)\]$/, "$1"), port };
}

/**
 * Starts and supervises GIMP (or attaches to a running Script-Fu server) and evaluates forms in it. Without
 * `attach`, a crash or a call past its deadline kills the process group, `lost$` fires, and the bridge's reconnect
 * starts a fresh GIMP. With `attach` it never restarts what someone else runs.
 *
 * One closure on purpose (over 80 lines): the client's fault hook, the supervisor's exit hook and the session
 * share `connected`, the work dir and the reset on loss, which must happen together.
 */
export function createGimpConnection(options: GimpHostOptions): GimpConnection {
  const log = options.logger;
  const callTimeoutMs = options.callTimeoutMs ?? DEFAULT_GIMP_CALL_TIMEOUT_MS;
  const attached = options.attach !== undefined ? parseAttach(options.attach) : undefined;
  const supervisor = attached ? undefined : new GimpSupervisor({ binary: options.binary, startTimeoutMs: options.startTimeoutMs, logger: log });
  const lost$ = new Subject<Error>();
  let connected = false;
  let workDir: string | undefined;
  let ownWorkDir = false;
  let fileCounter = 0;
  let files: FileAccess | undefined;
  const ids: GimpIds = { images: new IdSpace(), layers: new IdSpace() };
  /** The image the bridge treated as active when GIMP was lost (adapter id), to be made active again. */
  let activeAtLoss: number | undefined;
  /** Whether `connect()` succeeded before: an attached GIMP is then the same one, with its images. */
  let connectedBefore = false;

  const goneAway = (reason: string): void => {
    if (!connected) return;
    connected = false;
    activeAtLoss = session.activeImage === undefined ? undefined : ids.images.out(session.activeImage);
    recovery?.lost();
    session.activeImage = undefined;
    session.sources.clear();
    session.origins.clear();
    client.reset();
    client.failQueued(new BridgeError("HOST_UNAVAILABLE", `GIMP went away: ${reason}`, { details: { reason } }));
    lost$.next(new Error(reason));
  };

  const requireWorkDir = (): string => {
    if (workDir === undefined) throw new BridgeError("HOST_UNAVAILABLE", "GIMP is not connected");
    return workDir;
  };

  const client: GimpClient = new GimpClient({
    endpoint: () => attached ?? supervisor?.endpoint,
    workDir: requireWorkDir,
    fault: (reason, kind) => {
      if (!supervisor) {
        // Someone else runs this GIMP: a stuck call cannot be stopped from here; a vanished one is reported.
        if (kind === "gone") goneAway(reason);
        return { restarted: false };
      }
      if (!connected) return { restarted: false };
      log?.warn({ actor: "host", editor: "gimp", reason }, "restarting GIMP");
      void supervisor.kill().then(() => goneAway(reason));
      return { restarted: true };
    },
  });

  if (supervisor) supervisor.onUnexpectedExit = (reason) => goneAway(reason);

  const recoveryOptions = options.recovery === false ? undefined : options.recovery;
  const maxCopyBytes = recoveryOptions?.maxBytes ?? DEFAULT_LIMITS.editorRecoveryMaxBytes;
  const recovery =
    supervisor === undefined || options.recovery === false || maxCopyBytes <= 0
      ? undefined
      : new GimpRecovery(
          {
            intervalMs: recoveryOptions?.intervalMs ?? DEFAULT_LIMITS.editorRecoveryIntervalMs,
            settleMs: recoveryOptions?.settleMs ?? DEFAULT_LIMITS.editorRecoverySettleMs,
            maxBytes: maxCopyBytes,
          },
          {
            call: (form) => client.call(form, { timeoutMs: callTimeoutMs }),
            dir: () => supervisor.recoveryDir(),
            get sources() {
              return session.sources;
            },
            get origins() {
              return session.origins;
            },
            reopenFile: async (path, identity) => {
              // Read as an open reads it (inside the files roots), compared, and the bytes compared are what GIMP loads.
              const read = await readClientFile(session, path, { maxBytes: session.maxSourceBytes }).catch(() => undefined);
              if (read === undefined || !sameIdentity(read.identity, identity)) return undefined;
              return staged(session, path, read.bytes, (file) => client.call(`(br-remade (br-open ${lit(file)} ${lit(path)}))`, { timeoutMs: callTimeoutMs }));
            },
            ids,
            log,
          },
        );

  const session: GimpConnection = {
    // A GIMP on another machine opens and writes paths there: the bridge can only check them lexically.
    filesystem: attached !== undefined && !isLoopbackHost(attached.host) ? "remote" : "local",
    activeImage: undefined,
    sources: new Map(),
    origins: new Map(),
    callTimeoutMs,
    get maxSourceBytes() {
      return options.maxSourceBytes ?? files?.maxOpenFileBytes ?? DEFAULT_MAX_OPEN_FILE_BYTES;
    },
    roots: () => files?.policy.roots ?? null,
    useFileAccess: (access) => {
      files = access;
    },
    ids,
    recovery,
    lost$,
    get pid() {
      return supervisor?.pid;
    },
    get endpoint() {
      return attached ?? supervisor?.endpoint;
    },

    call: (ctx, form, errorCode) => client.call(form, { timeoutMs: callTimeoutMs, signal: ctx?.signal, errorCode }),
    run: (ctx, form, timeoutMs) => client.run(form, { timeoutMs: Math.min(timeoutMs, callTimeoutMs), signal: ctx.signal, errorCode: "JSX_FAILED" }),
    poll: (form) => client.call(form, { timeoutMs: POLL_TIMEOUT_MS }),
    busy: () => client.pending > 0 || !connected,

    image: (documentId) => (documentId !== undefined ? int(documentId) : `(br-pick ${int(session.activeImage ?? -1)})`),

    async scratch(ext, use) {
      const file = join(requireWorkDir(), `f${process.pid}-${++fileCounter}${ext}`);
      try {
        return await use(file);
      } finally {
        await rm(file, { force: true });
      }
    },

    async connect(): Promise<HostInfo> {
      if (supervisor) {
        await supervisor.start();
        workDir = await supervisor.workDir();
      } else if (workDir === undefined) {
        workDir = await mkdtemp(join(tmpdir(), "bridge-gimp-io-"));
        ownWorkDir = true;
      }
      client.reset();
      let version: Sexp;
      try {
        version = await client.call("(car (gimp-version))", { timeoutMs: callTimeoutMs });
      } catch (error) {
        if (supervisor) await supervisor.kill();
        if (attached !== undefined && isBridgeError(error) && error.code === "HOST_UNAVAILABLE") throw notListening(attached, error);
        throw error;
      }
      // A supervised GIMP is a new process at every connect. An attached one is the same GIMP after a reconnect (a
      // call that ran out its deadline, a dropped socket), still holding the images its clients are working on: it
      // is only reset on its first connect.
      const reset = supervisor !== undefined || !connectedBefore;
      if (reset && options.sample === true) await client.call(SAMPLE_SCRIPT, { timeoutMs: callTimeoutMs });
      else if (reset && options.sample === "empty") await client.call(CLOSE_ALL_SCRIPT, { timeoutMs: callTimeoutMs });
      connectedBefore = true;
      session.activeImage = undefined;
      if (recovery) {
        try {
          session.activeImage = await recovery.reopen(activeAtLoss);
        } catch (error) {
          // A GIMP that died or hung while reopening is replaced on the next attempt, which reopens every copy.
          if (supervisor) await supervisor.kill();
          throw error;
        }
      }
      activeAtLoss = undefined;
      connected = true;
      return { hostVersion: `gimp ${String(version)}` };
    },

    async close(): Promise<void> {
      connected = false;
      recovery?.stop();
      client.failQueued(new BridgeError("SHUTTING_DOWN", "The GIMP host is closing"));
      if (supervisor) await supervisor.stop();
      else if (ownWorkDir && workDir !== undefined) await rm(workDir, { recursive: true, force: true });
      workDir = undefined;
    },
  };
  return session;
}

/** An attached Script-Fu server that does not answer: where it was looked for, and the two ways out. */
function notListening(attached: { host: string; port: number }, cause: BridgeError): BridgeError {
  const where = attached.host.includes(":") ? `[${attached.host}]:${attached.port}` : `${attached.host}:${attached.port}`;
  return new BridgeError(
    "HOST_UNAVAILABLE",
    `no GIMP Script-Fu server answers at ${where} (--gimp-attach): start one in GIMP (Filters › Script-Fu › Start Server…, ` +
      `port ${attached.port}) or leave out --gimp-attach to let the bridge start gimp-console-2.10 itself (apt install gimp)`,
    { details: { ...cause.details, attach: where }, cause },
  );
}
