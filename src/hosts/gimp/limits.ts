/*
 * Every limit of the GIMP host, named, with the reason it exists.
 * The ones a deployment may want to change are also options of `createGimpHost`.
 */

/** The Script-Fu request length is a 16-bit field: longer scripts cannot be sent at all. */
export const MAX_SCRIPT_BYTES = 65_535;

/**
 * The server writes the response length as `len & 0xFFFF` without checking, so a longer body desyncs the stream:
 * a reply of this many characters (up to 64 KiB of UTF-8) could still be sent inline. Values are written through
 * a file all the same (`br-reply`: Script-Fu's string ports drop characters), so only printed output goes inline.
 */
export const MAX_INLINE_REPLY_CHARS = 16_000;

/** Bytes of a reply we are willing to buffer from the socket; anything longer is a desync, not data. */
export const MAX_REPLY_BYTES = 65_535 + 4;

/** TinyScheme refuses string literals of 1024 characters or more; longer strings are built with `string-append`. */
export const MAX_LITERAL_CHARS = 1_000;

/** Default deadline of one Script-Fu call; past it GIMP is presumed stuck (it has no server-side timeout). */
export const DEFAULT_GIMP_CALL_TIMEOUT_MS = 120_000;

/** How long a cold GIMP may take to open its Script-Fu port (measured 3.3–5.6 s cold, ~1 s warm on 2 cores). */
export const DEFAULT_GIMP_START_TIMEOUT_MS = 60_000;

/** Readiness is a TCP connect that succeeds; this is the retry period while GIMP starts. */
export const READINESS_POLL_MS = 50;

/** After `(gimp-quit 0)`, how long GIMP may take to exit (measured 140–210 ms) before its process group is killed. */
export const GIMP_QUIT_GRACE_MS = 2_000;

/** GIMP's tile cache defaults to half of RAM; the private profile caps it. */
export const GIMP_TILE_CACHE = "256M";

/** Period of the event poll while someone subscribes (reference: 100 ms caught every scripted change). */
export const DEFAULT_POLL_INTERVAL_MS = 200;

/** Deadline of one poll; a poll that takes longer means GIMP is stuck. */
export const POLL_TIMEOUT_MS = 10_000;

/**
 * Starts of one GIMP on freshly picked ports before giving up: another process can take a picked port before GIMP
 * binds it, and a GIMP that cannot bind stays running without a server, so it is killed and started again.
 */
export const GIMP_PORT_ATTEMPTS = 3;

/** Deadline of the check that the server on a picked port is our GIMP (one trivial evaluation, ~1 ms). */
export const GIMP_IDENTITY_TIMEOUT_MS = 10_000;

/**
 * The longest the bridge's thread reads or writes an XCF file (GIMP's exports, the images handed to it) before it
 * lets other clients' work run: a 100-megapixel export is seconds of tiles, done in slices of this length.
 */
export const XCF_SLICE_MS = 4;
