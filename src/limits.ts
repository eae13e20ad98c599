/*
 * Every limit of the bridge, named, with the reason it exists. All of them can be
 * overridden through `createBridge({ limits })`.
 */

import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { totalmem } from "node:os";
import { DEFAULT_MAX_OPEN_FILE_BYTES } from "./files/index.js";

const MiB = 1024 * 1024;

/** Most sockets the bridge holds by default, whatever the descriptor limit: the benchmarks' 10,000 idle clients fit. */
const MAX_CONNECTIONS_CEILING = 32_768;
/** Descriptors kept for everything but client sockets (files, editors' pipes, outgoing requests, logs), at most. */
const DESCRIPTOR_HEADROOM = 1_024;

/**
 * The process's soft open-files limit (Node raises it to the hard limit at startup), or undefined where there is
 * none to read (Windows, or a system that will not say). Synchronous on purpose: it runs once, when this module is
 * loaded (for `DEFAULT_LIMITS`), before anything listens, so no client can be waiting on it.
 */
function openFilesLimit(): number | undefined {
  try {
    if (process.platform === "win32") return undefined;
    if (process.platform === "linux") {
      const line = readFileSync("/proc/self/limits", "utf8").split("\n").find((l) => l.startsWith("Max open files"));
      const soft = line?.slice("Max open files".length).trim().split(/\s+/)[0];
      return soft === undefined || soft === "unlimited" ? undefined : Number(soft) || undefined;
    }
    // A child shell inherits this process's limit.
    const text = execFileSync("sh", ["-c", "ulimit -n"], { encoding: "utf8", timeout: 2_000 }).trim();
    return text === "unlimited" ? undefined : Number(text) || undefined;
  } catch {
    return undefined;
  }
}

/** Share of the machine's memory all editors together may take by default. */
export const EDITORS_MEMORY_SHARE = 0.5;
/** Least memory cap an editor process is given by default, however small the machine or many the editors. */
export const EDITOR_MIN_MEMORY_BYTES = 1024 * MiB;
/**
 * Memory an editor process needs beside its budget (the runtime, code, sharp's caches, encoders' scratch memory),
 * at most: the default budget is the cap less this, or less a quarter of the cap when that is smaller.
 */
export const EDITOR_RUNTIME_BYTES = 512 * MiB;

/**
 * An editor's memory cap and budget by default, for `editors` editors on this machine: the cap is an equal share
 * of {@link EDITORS_MEMORY_SHARE} of the machine's memory (at least {@link EDITOR_MIN_MEMORY_BYTES}), the budget
 * the cap less the runtime's needs. With a cap given (`maxMemoryBytes`) the budget follows it.
 */
export function editorMemoryDefaults(editors: number, maxMemoryBytes?: number): { maxMemoryBytes: number; budgetBytes: number } {
  const cap = maxMemoryBytes ?? Math.max(EDITOR_MIN_MEMORY_BYTES, Math.floor((totalmem() * EDITORS_MEMORY_SHARE) / Math.max(1, editors)));
  return { maxMemoryBytes: cap, budgetBytes: Math.floor(cap - Math.min(EDITOR_RUNTIME_BYTES, cap / 4)) };
}

const ONE_EDITOR_MEMORY = editorMemoryDefaults(1);

/** `maxConnections` by default: the ceiling, or the descriptor limit less its headroom when that is lower. */
function defaultMaxConnections(): number {
  const files = openFilesLimit();
  if (files === undefined) return MAX_CONNECTIONS_CEILING;
  return Math.max(1, Math.min(MAX_CONNECTIONS_CEILING, files - Math.min(DESCRIPTOR_HEADROOM, Math.floor(files / 8))));
}

export const DEFAULT_LIMITS = {
  /** Largest WS frame accepted; bigger frames close the socket with 1009 before they are buffered. */
  maxPayloadBytes: 96 * MiB,
  /**
   * Largest WS text message (JSON), refused from its header, before it is buffered or parsed: parsing holds the
   * bridge's thread (a 90 MB frame for seconds), and images travel as binary parts. The largest legitimate text
   * frames, measured: a script at its 1 MiB source limit (1.04 MiB as JSON for real bundles, 2 MiB if every
   * character needed escaping) and a 10,000-point polygon selection (0.35 MiB): twice the worst of them.
   */
  maxTextFrameBytes: 4 * MiB,
  /**
   * WebSocket text messages and JSON bodies from this size on are parsed on a worker thread, not the bridge's:
   * parsing costs as long as the text is long or deep (a 2 MB array nested a million deep, two seconds). Below it,
   * at most some 30,000 levels fit, parsed in tens of milliseconds.
   */
  jsonOffThreadBytes: 64 * 1024,
  /**
   * Deepest nesting of JSON parsed on the worker; deeper is refused before it is parsed (it could not be handed back
   * to the bridge's thread either). Requests nest a few levels (a batch of polygon selections, six).
   */
  maxJsonDepth: 256,
  /** Largest JSON body on HTTP routes; guards memory against oversized bodies. */
  maxHttpBodyBytes: 8 * MiB,
  /** Largest body of the import route, which carries whole images as base64. */
  maxImportBodyBytes: 96 * MiB,
  /**
   * WebSocket frames and HTTP bodies being received and not yet parsed, all clients together: each is bounded on its
   * own, but sixteen 90 MB frames at once would hold 1.4 GB. A large frame or body reserves its size before it is
   * read; past this total its socket is no longer read (TCP backpressure) until earlier ones are parsed. Holds two
   * of the largest frames at once; a frame above it passes alone.
   */
  inboundBytesInFlight: 256 * MiB,
  /**
   * Of `inboundBytesInFlight`, what the frames and bodies of one remote address (loopback included) may hold at
   * once, so one client with many sockets cannot take it all: half, one largest frame at a time.
   */
  inboundBytesPerAddress: 128 * MiB,
  /**
   * Frames and bodies below this size never wait for `inboundBytesInFlight` (they are counted): ordinary calls,
   * `/health` and the operator's requests are answered while large uploads queue.
   */
  inboundSmallBytes: 64 * 1024,
  /**
   * Largest document file `document:open` (and `--open`, scripts' `app.open`) reads; a bigger one is refused from
   * its size, so a huge or endless file cannot fill memory.
   */
  maxOpenFileBytes: DEFAULT_MAX_OPEN_FILE_BYTES,
  /** Largest encoded image `layer:importImage` accepts from any source (data, base64, file, URL). */
  maxImportBytes: 64 * MiB,
  /**
   * Largest binary part a request may attach on a `?binary=1` connection (the image of `layer:importImage`); a
   * bigger one fails that request with PAYLOAD_TOO_LARGE. Equal to `maxImportBytes`, the only use of a part.
   */
  maxBinaryPartBytes: 64 * MiB,
  /** Binary parts one request may name (`{ "binary": n }` params, n below this): bounds what a socket holds at once. */
  maxBinaryPartsPerRequest: 1,
  /**
   * How long a request that names binary parts waits for them: a client that never sends the bytes must not leave
   * the request hanging. A text message arriving first fails the request at once.
   */
  binaryPartWaitMs: 10_000,
  /** Largest decoded import (width × height): a small file can declare a huge image (decompression bomb). */
  maxImportPixels: 100_000_000,
  /** Deadline of a URL import, headers to last byte: a slow server must not hold the editor. */
  importUrlTimeoutMs: 20_000,
  /** Redirects followed per URL import; each hop is checked again against private targets. */
  importMaxRedirects: 5,
  /** Largest document `document:create` makes (width × height): 100 MP is 400 MB per full-canvas layer. */
  maxDocumentPixels: 100_000_000,
  /** Largest image an export produces after `scale`: bounds the memory one encode may take. */
  maxExportPixels: 100_000_000,
  /** Requests a logical client may have open at once; past it → TOO_MANY_REQUESTS. */
  maxInFlightPerClient: 64,
  /**
   * Calls one `batch` request may carry; past it the batch is refused (BAD_REQUEST) before any call runs. Bounds the
   * work and the answer one frame can ask for, since a batch's calls count in flight only one at a time.
   */
  maxBatchRequests: 64,
  /**
   * Variants one `template:render` call may carry; past it the call is refused (BAD_REQUEST) before any runs. Each
   * opens a document, so this bounds the editor memory and time one call can ask for.
   */
  maxTemplateVariants: 500,
  /**
   * Variants of one `template:render` call answered inline (no output `path`): each image rides in the answer, so
   * this bounds the answer's size. Past it the call is refused (BAD_REQUEST): write files instead.
   */
  maxInlineTemplateVariants: 16,
  /** Host-bound calls waiting in the mailbox across all clients; past it → HOST_BUSY. */
  mailboxDepth: 256,
  /**
   * Calls one client (one lane) may have waiting in an editor's mailbox. Past it, or past its fair share of the
   * mailbox (`mailboxDepth` split between the lanes waiting plus one for a newcomer) → HOST_BUSY, so a few busy
   * clients cannot fill the mailbox and starve the next one.
   */
  mailboxDepthPerClient: 32,
  /**
   * How fast a client's editor time is forgiven: the mailbox runs next the waiting client that used the least
   * editor time, counted with this half-life. Shorter lets a client whose calls take seconds back in sooner
   * (taking more of the editor from the others); longer remembers it longer, and also makes a client wait longer
   * after one call of its own that happened to be slow (it waits until every client waiting has used as much).
   * In the soak, 10 s made some ordinary clients wait 20 s after such a call; 2 s did not.
   */
  editorTimeHalfLifeMs: 2_000,
  /** Host-bound calls running at once; editors are single-threaded. */
  hostConcurrency: 1,
  /**
   * Calls that change nothing (reads, exports) one editor may run at once, when the editor says it can
   * (`HostAdapter.readConcurrency`, the embedded editor in its own process): they overlap the hop to the editor.
   * A call that changes the document always runs alone.
   */
  hostReadConcurrency: 8,
  /** Deadline of an ordinary host call, queueing included. */
  callTimeoutMs: 30_000,
  /**
   * Least of its deadline a call must have left when it leaves the queue, or it is not started (TIMEOUT,
   * `outcome: "not-started"`, retryable): work begun with a moment left would be abandoned at its deadline, its
   * result thrown away, while it holds the editor from the calls behind it. At most half the call's own timeout.
   */
  callMinTimeLeftMs: 2_000,
  /** Deadline of scripts and exports, which legitimately take long on big documents. */
  longCallTimeoutMs: 120_000,
  /**
   * Least time between two `progress` events about one request; reports in between are dropped (values only grow,
   * so the next one sent covers them). Bounds what a chatty editor or script can make the bridge send.
   */
  progressIntervalMs: 100,
  /** After a deadline, how long a host may take to honour the abort before its slot is freed anyway. */
  abortGraceMs: 2_000,
  /** A call slower than this marks the host session `degraded` until a fast call succeeds. */
  slowCallMs: 5_000,
  /**
   * Logical clients kept at once, attached or detached. Past it the longest-detached client is disposed to make
   * room; with none detached, new connections are refused (503 HOST_BUSY) so reconnect storms cannot grow memory.
   */
  maxClients: 20_000,
  /** How long a detached logical client stays resumable. */
  resumeTtlMs: 30 * 60_000,
  /** Events buffered for a detached client; older ones are dropped and counted as `lost`. */
  replayBufferEvents: 1_000,
  /**
   * Bytes buffered for a detached client, whatever the event count: 1,000 preview events of ~100 KiB each would
   * otherwise hold 100 MiB per detached client. Older frames are dropped and counted as `lost`.
   */
  replayBufferBytes: 4 * MiB,
  /**
   * Bytes buffered for replay across all detached clients at once. Past it the longest-detached clients' buffers
   * are dropped first (their resume reports everything they missed as `lost`), so `maxClients` × `replayBufferBytes`
   * (80 GiB at the defaults) can never be held. `replayBufferBytes` is capped at this total.
   */
  replayTotalBytes: 256 * MiB,
  /** Outbound bytes queued on one socket before state events coalesce to the latest value. */
  outboundSoftBytes: 8 * MiB,
  /** Outbound bytes queued on one socket before it is closed with 4008 (the client stays resumable). */
  outboundHardBytes: 32 * MiB,
  /** Heartbeat ping period; a socket that has not answered the previous ping by the next one is dropped. */
  heartbeatMs: 30_000,
  /** Unparseable frames tolerated per socket before it is closed with 1007. */
  maxMalformedFrames: 10,
  /**
   * Frames per second a logical client may send (token bucket, refilled continuously); a frame past it is not
   * dispatched and is answered TOO_MANY_REQUESTS with `retryAfterMs`. Above what one connection sends when it waits
   * for each answer (the cheapest method, `getServerInfo`, reached 22,000-23,000 calls/s on a quiet core, and was
   * refused at 20,000), below what one connection sends when it does not wait (pipelined `getServerInfo`, 49,000
   * calls/s with 8 in flight and 65,000-82,000 with 64-256; unknown methods, 35,000-38,000 with 256-500), so only a
   * flood is refused. Measured with the bridge's process on one core and the client on the other.
   */
  clientFramesPerSecond: 30_000,
  /** Frames a logical client may send at once above its rate (the bucket's size): pipelined bursts pass. */
  clientFrameBurst: 2_000,
  /**
   * Refused frames within `clientFrameAbuseWindowMs` after which the socket is closed with 1008: a client that
   * ignores `retryAfterMs` and keeps flooding costs the bridge a parse and an answer per frame. With reading paused
   * once refusals come in a row (`clientFramePauseAfter`, `clientFramePauseMs`) a flood of small frames is refused about 5,000 times a second, so it is
   * cut within a second or two; a client that honours `retryAfterMs` (the client SDK does) never comes near it.
   */
  clientFrameAbuseRejections: 5_000,
  clientFrameAbuseWindowMs: 10_000,
  /**
   * Frames refused for the rate in a row (none admitted between) after which a socket stops being read for
   * `clientFramePauseMs`. A client that honours `retryAfterMs` is refused a handful at most and never paused.
   */
  clientFramePauseAfter: 64,
  /**
   * How long a socket is not read once `clientFramePauseAfter` of its frames in a row were refused for the rate: a flood then waits in the kernel (TCP backpressure) instead of costing the bridge a parse and
   * an answer per frame, so one flooding client cannot hold the thread that serves the others. Frames already read
   * are still answered.
   */
  clientFramePauseMs: 250,
  /**
   * Frames read from one WebSocket before the bridge lets the event loop go round (other sockets, timers): a client
   * pipelining megabytes of small frames would otherwise have tens of thousands parsed and answered in one go while
   * every other client waits. Above what a pipelined burst of calls sends at once, so ordinary clients never wait.
   */
  clientFramesPerTurn: 256,
  /**
   * Log lines of one kind about client mistakes (failed calls by code, unparseable frames, refused frames, socket
   * errors) written per `clientMistakeLogIntervalMs`; past it they are counted, and one line gives the count.
   */
  clientMistakeLogLines: 20,
  clientMistakeLogIntervalMs: 10_000,
  /**
   * Log lines about clients connecting, closing and being disposed, per remote address per `connectionLogIntervalMs`;
   * past it they are counted and one summary line per address gives the counts, so a program that connects and
   * drops in a loop cannot fill the log (each line is some 300 bytes).
   */
  connectionLogLines: 20,
  connectionLogIntervalMs: 10_000,
  /** Deadline for reconnecting to a lost editor: first retry delay, doubling up to the max. */
  reconnectInitialMs: 250,
  reconnectMaxMs: 10_000,
  /** How long `close()` waits for running calls before closing sockets anyway. */
  shutdownGraceMs: 5_000,
  /**
   * A cluster (`--cluster`): each bridge rewrites its entry in the members bucket (its editors and their load)
   * and reads the others' every `clusterHeartbeatMs`; an entry not rewritten for `clusterMemberTtlMs` expires,
   * freeing its slot. NATS lost: reconnects every `clusterReconnectWaitMs`; `start()` waits at most
   * `clusterConnectTimeoutMs` for NATS before serving degraded (it keeps trying).
   */
  clusterHeartbeatMs: 2_000,
  clusterMemberTtlMs: 15_000,
  clusterReconnectWaitMs: 2_000,
  clusterConnectTimeoutMs: 5_000,
  /** How long a bridge that went away without leaving stays in `/status` `cluster.lost` (and `/ready` degraded). */
  clusterLostVisibleMs: 5 * 60_000,
  /**
   * Messages between bridges over a NATS message's size (NATS's `max_payload`, 1 MB by default) cross in chunks of
   * `clusterChunkBytes` (less where the server's limit is lower), pulled by the receiver; the sender holds one for
   * `clusterTransferTtlMs` at most. A message over `clusterMaxTransferBytes` is refused (`PAYLOAD_TOO_LARGE`).
   */
  clusterChunkBytes: MiB / 2,
  clusterTransferTtlMs: 60_000,
  clusterMaxTransferBytes: 256 * MiB,
  /**
   * Logical clients that outlive their bridge: each bridge writes its WebSocket clients' sessions (editor,
   * subscriptions, `seq`, how far each event stream was delivered) to the cluster's sessions bucket at most every
   * `clusterSessionSyncMs`, and the cluster keeps editors' events in a JetStream stream of at most
   * `clusterReplayStreamBytes` (in the NATS server's memory; the oldest go first) for `clusterReplayStreamMs`, so a
   * client whose bridge died resumes on another with the events it missed.
   */
  clusterSessionSyncMs: 500,
  /**
   * With a cluster secret, how far a signed call's time may be from the receiving bridge's clock: a call recorded
   * off NATS cannot be replayed later (nor twice within it: its nonce is remembered). Bridges' clocks must agree
   * within it.
   */
  clusterCallMaxAgeMs: 30_000,
  clusterReplayStreamBytes: 64 * MiB,
  clusterReplayStreamMs: 30 * 60_000,
  /**
   * Sockets open at once, HTTP and WebSocket together, kept below the process's descriptor limit so files, the
   * editors' pipes and outgoing requests always find one. Default: the smaller of 32,768 and the open-files limit
   * (`RLIMIT_NOFILE`, soft) less a headroom of an eighth of it, at most 1,024 (18,976 at a limit of 20,000). Past
   * `maxConnections - connectionReserve` a new socket may only ask for `/health`, `/ready`, `/status` and
   * `/metrics` (anything else, upgrades included: 503 HOST_BUSY); past `maxConnections` the oldest socket that
   * has sent nothing yet is closed to make room, and without one the new socket is answered 503 HOST_BUSY at once
   * and closed.
   */
  maxConnections: defaultMaxConnections(),
  /** Sockets kept, below `maxConnections`, for probes and the operator (`/health`, `/ready`, `/status`, `/metrics`). */
  connectionReserve: 64,
  /**
   * Connections the system may hold for the bridge before the bridge accepts them (the listen backlog; the system
   * caps it, at `net.core.somaxconn` on Linux). Past it new connections are not refused but dropped, and their
   * clients try again only after one, three, seven seconds. Node's default is 511: a burst of a thousand
   * connections while the bridge's thread was busy for a moment had most of them dropped. A backlog absorbs bursts
   * only: connections arriving faster than the bridge accepts them, for long, wait in it instead of being dropped.
   */
  listenBacklog: 4096,
  /**
   * Sockets one remote address may hold at once (loopback is exempt unless the bridge is told to count it); past it
   * a new socket is answered 429 TOO_MANY_REQUESTS and closed. Behind a trusted proxy (`--trust-proxy`) the
   * address the proxy forwards is counted.
   */
  maxConnectionsPerAddress: 256,
  /**
   * How long a new socket may stay silent (no request, no upgrade) before it is closed: connections that never send
   * a byte must not hold descriptors. Between requests, keep-alive sockets close after 5 s of their own.
   */
  idleConnectionMs: 15_000,
  /** Deadline for a request's headers, from the connection or the previous request (Node's `headersTimeout`; 408). */
  httpHeadersTimeoutMs: 20_000,
  /**
   * Deadline for receiving a whole request, body included (Node's `requestTimeout`; 408): long enough for the
   * largest import body (96 MiB) at under 1 MB/s. Answers and event streams are not bound by it.
   */
  httpRequestTimeoutMs: 120_000,
  /** Deadline of a plugin's `setup`; past it the plugin fails registration and nothing it registered stays. */
  pluginSetupTimeoutMs: 10_000,
  /** Deadline of each `onConnect`/`onDisconnect`/`onDispose` hook, so one stuck plugin cannot hold connections or shutdown. */
  pluginHookTimeoutMs: 5_000,
  /** Deadline of a plugin method or route handler; its signal aborts and the caller gets TIMEOUT. */
  pluginCallTimeoutMs: 120_000,
  /**
   * Memory of an isolated plugin: in a worker thread its heap (V8's old generation, via `resourceLimits`) plus the
   * external memory its isolate holds (`Buffer`s and other array buffers, which live in the bridge's own process);
   * in a child process its resident memory (native modules included). A plugin that leaks or allocates without
   * bound is stopped at this cap and restarted, never taking the bridge's memory with it.
   */
  pluginMaxMemoryBytes: 256 * 1024 * 1024,
  /**
   * How often an isolated plugin's memory is checked against `pluginMaxMemoryBytes` between pings (a worker reports
   * it, and three samples of silence mark it blocked; a child process's resident memory is read from `/proc`): what
   * it can allocate past the cap before it is stopped is what it allocates in this time.
   */
  pluginMemorySampleMs: 100,
  /** How often the bridge pings an isolated plugin; a worker spinning in a synchronous loop cannot answer. */
  pluginPingIntervalMs: 5_000,
  /** How long an isolated plugin may take to answer a ping (or a cancelled call's check) before it is terminated and restarted. */
  pluginPingTimeoutMs: 2_000,
  /** Restarts of a crashed isolated plugin allowed within `pluginRestartWindowMs`; one more crash and it is `failed`. */
  pluginRestartAttempts: 5,
  /** The window over which `pluginRestartAttempts` counts crashes, so a plugin that crashes once a day keeps restarting. */
  pluginRestartWindowMs: 60_000,
  /** Wait before the first restart of a crashed plugin; it doubles with each crash in the window, so a crash loop cannot spin the CPU. */
  pluginRestartBackoffMs: 100,
  /**
   * While a call to an editor running in its own process is still running after it was cancelled (deadline or
   * shutdown), how long the editor's main thread may stay silent (no heartbeat) before the editor is killed and
   * restarted: a `for(;;){}` no checkpoint reaches must not hold the editor forever, but an editor busy in native
   * work (sharp encoding a big export) keeps beating and is never killed for it, since killing it loses every
   * client's documents. Longer than the longest stretch of legitimate synchronous work (compositing a large document).
   */
  editorKillGraceMs: 10_000,
  /**
   * Least time between two recovery copies of one changed document of an embedded editor (kept so that a restarted
   * editor reopens it under its id): the most of its work an editor's loss can take, against the copying an editor
   * does. A new document gets its first copy as soon as it settles.
   */
  editorRecoveryIntervalMs: 5_000,
  /** A changed document is copied once it has not changed for this long: a burst of edits costs one copy. */
  editorRecoverySettleMs: 1_000,
  /**
   * Disk the recovery copies of one embedded editor may take together (in a private folder under the system's
   * temporary folder); a document whose copy would pass it gets none and is lost with its editor. 0 turns copies off.
   */
  editorRecoveryMaxBytes: 4 * 1024 * MiB,
  /**
   * Memory of an editor running in its own process, native memory included (`RLIMIT_DATA` plus an RSS sampler):
   * one huge document or a leak kills and restarts that editor, never the bridge or the machine. Default: half the
   * machine's memory shared equally by the editors (`--editors`), at least 1 GiB each (the figure here is for one).
   */
  editorMaxMemoryBytes: ONE_EDITOR_MEMORY.maxMemoryBytes,
  /**
   * What an embedded editor's documents, layers, imports, decoded images, work under way and segmentation model
   * may hold together. Each is charged before it is allocated, from header sizes; what would not fit is refused
   * with PAYLOAD_TOO_LARGE naming this limit, and closing documents gives the memory back. Kept below
   * `editorMaxMemoryBytes`, so a refusal comes before the cap kills the editor. Default: the editor's cap less
   * what its runtime needs (512 MiB, or a quarter of a smaller cap).
   */
  editorMemoryBudgetBytes: ONE_EDITOR_MEMORY.budgetBytes,
  /** Most undo steps an embedded editor keeps per document (`history:*`); the oldest go first. */
  editorHistorySteps: 100,
  /**
   * Share of an embedded editor's memory budget, in percent, the undo histories of its documents may hold together
   * (what they hold beyond the documents themselves: the pixels an edit replaced); the oldest steps go first, and
   * before any work is refused for memory.
   */
  editorHistoryBudgetPercent: 25,
  /**
   * Largest image an MCP tool result carries as image content (before base64). A bigger one is downscaled and
   * re-encoded until it fits, with a note saying so: a model's context cannot take a 40 MB export.
   */
  mcpMaxImageBytes: 4 * MiB,
  /**
   * MCP sessions open at once on `/mcp`; each holds a server and its subscriptions. Past it a new session ends the
   * longest-idle one (refused 503 HOST_BUSY only when every session is answering a request), so sessions opened and
   * abandoned cannot lock other agents out.
   */
  mcpMaxSessions: 64,
  /**
   * MCP sessions one client address may hold (counted as the connection limits count addresses: loopback only with
   * `countLoopbackPerAddress`); past it that address's own longest-idle session ends, so one address cannot take
   * the others' room.
   */
  mcpMaxSessionsPerAddress: 16,
  /**
   * An MCP session with no request for this long ends (its client re-initializes on the 404 it then gets): a
   * client that never sends DELETE would otherwise hold its server and subscriptions until the bridge restarts.
   */
  mcpSessionIdleMs: 30 * 60_000,
  /** Period of the comment line an event stream (`GET /events`) sends when idle, so proxies keep it open and dead readers show. */
  sseHeartbeatMs: 15_000,
  /** Events the event-stream log keeps for readers resuming with `Last-Event-ID`; older ones are reported as `lost`. */
  sseLogEvents: 1_000,
  /** Bytes the event-stream log keeps, whatever the count: previews are large. Older events are reported as `lost`. */
  sseLogBytes: 8 * MiB,
  /**
   * Dropped events the log still remembers by id and type only (no data), so a resuming reader is told exactly how
   * many of its own events it missed; past it the count becomes an upper bound.
   */
  sseLogDroppedEvents: 10_000,
  /** How long the log keeps recording a type after its last stream closed, so a reconnecting reader misses nothing. */
  sseLogRetainMs: 5 * 60_000,
  /** How long a ticket from `POST /events/ticket` is valid; it is single-use, for one `EventSource` connection. */
  sseTicketTtlMs: 30_000,
  /** Tickets outstanding at once; past it the oldest is forgotten, so unused tickets cannot grow memory. */
  sseMaxTickets: 1_000,
  /** Bytes queued on one event stream before state events coalesce to the latest value. */
  sseSoftBytes: 1 * MiB,
  /** Bytes queued on one event stream before it is closed (the reader may resume with its last id). */
  sseHardBytes: 8 * MiB,
  /** How long an event stream may stay above `sseSoftBytes` before it is closed: a reader that stopped reading. */
  sseSlowReaderMs: 30_000,
  /**
   * Bytes queued on all event streams together, each stream's queue counted whole (streams share the encoded
   * events, so the memory held is at most this): a thousand readers that never read, each below its own caps, would
   * otherwise hold gigabytes. Past it the streams furthest behind are closed first (they may resume with their id).
   */
  sseTotalBytes: 64 * MiB,
  /** Event streams open at once: each holds a socket, listeners and timers, whatever its queue. Past it `503 HOST_BUSY`. */
  sseMaxStreams: 1_024,
  /**
   * Event streams open at once from one remote address, loopback included (a dashboard tab holds one or two), so one
   * program cannot take every stream. Past it `429 TOO_MANY_REQUESTS`.
   */
  sseMaxStreamsPerAddress: 64,
  /** Webhooks at once: each holds subscriptions, a queue and a delivery log. */
  maxWebhooks: 100,
  /** Deliveries waiting per webhook; past it the oldest is dropped and counted, so a dead receiver cannot grow memory. */
  webhookQueueEvents: 1_000,
  /** Attempts the delivery log keeps per webhook (`GET /webhooks/{id}/deliveries`). */
  webhookLogEntries: 100,
  /** Deadline of one delivery attempt, connection to answer: a receiver that never answers fails the attempt. */
  webhookTimeoutMs: 10_000,
  /**
   * Bytes of a receiver's answer body kept for the delivery log; the rest is never read (the socket is closed), so
   * a receiver streaming an endless body cannot keep the bridge's thread reading it until the attempt's deadline.
   */
  webhookResponseBodyBytes: 4 * 1024,
  /** Delay before the first retry of a failed delivery; doubles per attempt up to the max, with jitter. */
  webhookRetryInitialMs: 1_000,
  webhookRetryMaxMs: 5 * 60_000,
  /** Failed attempts in a row after which a webhook is disabled (shown in `/status`) until re-enabled. */
  webhookDisableAfterFailures: 10,
  /**
   * How much lower than the bridge's thread the webhook delivery thread runs (added to its niceness, at most 19; 0
   * keeps them equal): on a machine whose cores are busy, serving clients goes before calling receivers.
   */
  webhookThreadNice: 10,
} as const;

export type Limits = { -readonly [K in keyof typeof DEFAULT_LIMITS]: number };

/**
 * The limits in force: the defaults, the editors' memory derived for `editors` editors (unless given), then the
 * overrides.
 */
export function resolveLimits(overrides: Partial<Limits> = {}, editors = 1): Limits {
  const memory = editorMemoryDefaults(editors, overrides.editorMaxMemoryBytes);
  return { ...DEFAULT_LIMITS, editorMaxMemoryBytes: memory.maxMemoryBytes, editorMemoryBudgetBytes: memory.budgetBytes, ...overrides };
}
