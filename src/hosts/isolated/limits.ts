/*
 * Timing and memory constants of the editor process. The two limits an operator tunes, the kill grace and the memory
 * cap, are bridge limits (`editorKillGraceMs`, `editorMaxMemoryBytes` in `src/limits.ts`); these are their details.
 */

/**
 * Share of the memory cap given to V8's old space (`--max-old-space-size`), so a runaway JS heap meets V8's own,
 * clearly reported limit before the process limit; the rest is for pixels (ArrayBuffers), sharp/libvips and code.
 * @default 0.5
 */
export const EDITOR_HEAP_SHARE = 0.5;

/** Smallest V8 old space given, whatever the cap: below it the editor cannot even load. @default 128 MiB */
export const EDITOR_MIN_HEAP_BYTES = 128 * 1024 * 1024;

/**
 * How often the editor's resident memory is read (`/proc/<pid>/status`) and compared with the cap, for memory the
 * process limit does not count (file-backed or shared mappings, platforms without `RLIMIT_DATA`). @default 250
 */
export const EDITOR_MEMORY_SAMPLE_MS = 250;

/** How long `close()` waits for the editor process to exit by itself before killing it. @default 2_000 */
export const EDITOR_CLOSE_GRACE_MS = 2_000;

/**
 * How long a starting editor may take to answer `ready` (load sharp, build the sample or open `--open`) before it
 * is killed and `connect()` fails. @default 60_000
 */
export const EDITOR_START_TIMEOUT_MS = 60_000;

/** Bytes of the editor's stderr kept to name the cause of a crash ("JavaScript heap out of memory"). @default 8 KiB */
export const EDITOR_STDERR_TAIL_BYTES = 8 * 1024;

/**
 * Where the kernel cannot kill the editor with the bridge (no `setpriv`, not Linux), how often the editor's watchdog
 * thread checks that its parent is still the bridge; a stuck editor is killed by it within this time. @default 1_000
 */
export const EDITOR_ORPHAN_CHECK_MS = 1_000;

/**
 * Scheduling niceness of the editor process (0 normal, 19 lowest). When its heavy work and the bridge compete for
 * the cores, the bridge's thread, which answers every client, wins. @default 10
 */
export const EDITOR_NICENESS = 10;

/**
 * Blobs the editor sends of at least this size cross through a private folder in shared memory (`/dev/shm`) instead
 * of the socket: one copy into memory on the editor's side, one read on the bridge's libuv threads, rather than
 * ~130 socket reads of 64 KiB on the bridge's own thread for an 8 MB export. @default 1 MiB
 */
export const SPILL_MIN_BYTES = 1024 * 1024;

/**
 * Least time between two `progress` messages the editor sends for one call; reports in between are dropped (the
 * last one before the answer is not needed: the answer says the call is done). @default 50
 */
export const EDITOR_PROGRESS_INTERVAL_MS = 50;

/**
 * How often the editor's main thread tells the bridge it is alive. The bridge kills an editor only when a call it
 * was told to stop is still running and no heartbeat came for `editorKillGraceMs`: busy native work (sharp encoding
 * in its own threads) leaves the main thread free to beat, a stuck loop does not. Never more than a quarter of the
 * kill grace, so a shortened grace is not reached between two beats. @default 250
 */
export const EDITOR_HEARTBEAT_MS = 250;

/** Bytes of a recovery copy written per turn of the editor's event loop (a large copy never holds it long). @default 4 MiB */
export const RECOVERY_WRITE_SLICE_BYTES = 4 * 1024 * 1024;

/**
 * How long a call runs before its checkpoints start the editor's cancel-reader thread (`cancel-flags.ts`). Most
 * calls end sooner, or wait on native work and read a `cancel` message between awaits; starting the thread only when
 * a call has been busy this long keeps its start (some 50 ms of CPU) off every editor start. A cancel written
 * before the thread runs waits in the pipe and is read when it starts. @default 100
 */
export const CANCEL_READER_AFTER_MS = 100;
