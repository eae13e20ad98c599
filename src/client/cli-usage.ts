import { BUILTIN_METHOD_NAMES } from "../protocol/method-names.js";
import { IMAGE_FORMATS } from "./cli-images.js";

/* What the client commands print for --help, and what their exit statuses mean. */

/** Where the client commands look for the bridge without `--url` or `BRIDGE_URL`. */
export const DEFAULT_BRIDGE_URL = "http://127.0.0.1:7700";

/** Exit statuses of the client commands. */
export const EXIT_CODES = {
  OK: 0,
  /** The bridge answered with an error. */
  FAILED: 1,
  /** The command line was wrong. */
  USAGE: 2,
  /** The bridge could not be reached, or the connection ended. */
  UNAVAILABLE: 3,
  /** A file on this machine could not be written (`-o`). */
  LOCAL_FILE: 4,
  /** `health`: the bridge takes work but something is missing (an editor not ready, a failed plugin); `plugins`: one failed. */
  DEGRADED: 5,
} as const;

export const CLIENT_USAGE = `Client commands (talk to a running bridge):
  call <method> [json] [--param k=v ...] [-o file]
                                           call a method; --param values are JSON or strings, keys may be dotted
                                           (rect.x=1); -o writes a returned image to a file; call --help lists methods
  subscribe <event...> [--count n]         print events as JSON lines until interrupted, or after n events
  health                                   GET /ready: ok, degraded or down with what failed; exits 0 only
                                           for ok (5 degraded, 3 down or unreachable)
  plugins [id]                             loaded and failed plugins (exits 5 if one failed), or one plugin's health
  export-document -o <file> [--format ${IMAGE_FORMATS.join("|")}] [--quality n] [--max-size n] [--scale f]
                                           write the composite image of the active document
  export-layer -o <file> [--layer-id n | --layer-index n] [the export-document options]
                                           write one layer's image (the active layer by default)
  undo [--steps n] [--document-id n]       undo the last n steps (default 1) of the document's history, whoever
                                           made them (the active document by default)
  redo [--steps n] [--document-id n]       redo n undone steps (default 1)
  history [--document-id n]                the document's history: its steps, oldest first, and where it stands
  render-template <file> --data <rows.csv|rows.json> -o <pattern> [--comp name] [--concurrency n] [--trim]
                                           render one variant of a template per row (columns text:<layer>,
                                           image:<layer>, visible:<layer or name pattern>, fill:<layer>, comp, id,
                                           vars) to files named by the pattern (out/{id}.png); --trim crops each
                                           variant's transparent edges (a size per comp); exits 1 when a variant
                                           failed
Client options (a command refuses options it does not use):
  --url <url>          the bridge: http(s)://host:port or ws(s)://…  [BRIDGE_URL]   default ${DEFAULT_BRIDGE_URL}
  --token <token>      access token                                  [BRIDGE_TOKEN]
  --name <name>        this client's name in server:clients and the bridge's logs (not health, plugins)
  --timeout <ms>       per-request deadline
  --progress           call and export-*: print the bridge's progress reports on stderr
  --json               machine-readable output (one JSON value per line; errors as JSON on stderr)
Ctrl-C during a call cancels it on the bridge too: queued, it never runs; running, the editor is told to stop.
Exit status: 0 ok, 1 the bridge answered an error, 2 bad command line, 3 bridge unreachable, 4 a local file
could not be written, 5 degraded (health: something missing; plugins: one failed).
`;

/** `call --help`: how to call, and every built-in method by name. */
export const CALL_USAGE = `Usage: image-editor-bridge call <method> [json] [--param k=v ...] [-o <file>] [--json]

Built-in methods (plugins add theirs on their own endpoint):
${BUILTIN_METHOD_NAMES.map((name) => `  ${name}\n`).join("")}
Run "image-editor-bridge methods <method>" for a method's params and result.
`;
