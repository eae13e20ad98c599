import { MAX_EDITORS } from "../actors/editors/pool.js";
import { DEFAULT_LISTEN } from "../bridge/options.js";
import { CLIENT_USAGE } from "../client/cli-usage.js";
import { CUTOUT_EVENT } from "../hosts/embedded/cutout/report.js";
import { EMBEDDED_EVENT_TYPES } from "../hosts/embedded/events.js";
import { GIMP_EVENT_TYPES } from "../hosts/gimp/index.js";
import { EDITOR_RESTARTED_EVENT } from "../hosts/isolated/index.js";
import { PHOTOSHOP_EVENTS } from "../hosts/photoshop/events.js";
import { BUILTIN_METHODS, publishSchema } from "../methods/index.js";
import { MAIN_EVENTS } from "../protocol/index.js";
import { PACKAGE } from "../version.js";
import { LISTEN_FORMS } from "./addresses.js";
import { LOG_LEVELS } from "./args.js";
import type { CliCatalog } from "./offline.js";

/* What `image-editor-bridge help` prints, and the catalog the commands that need no bridge answer from. */

/** `image-editor-bridge help`: every command, the serve options with their environment variables, the client's. */
export const USAGE = `Usage: image-editor-bridge <command> [options]

Commands:
  serve [options]          start the bridge (options below)
  mcp [--url <url>] [--token <t>] | --embedded [--files-root <dir>]   an MCP server on stdin/stdout for AI agents:
                           drives the bridge at --url [BRIDGE_URL] (default http://${DEFAULT_LISTEN.host}:${DEFAULT_LISTEN.port}), or
                           starts one here confined to this folder (docs/mcp.md); --mcp-allow-scripts offers jsx tools
  call, subscribe, health, plugins, export-document, export-layer, undo, redo, history
                                                                   talk to a running bridge (see below)
  methods [name]           list the built-in methods, or one method's params, result and HTTP route
  events                   list the event types clients can subscribe to
  help, --help, -h         show this help (also shown when no command is given)
  version, --version, -v   print the version

Serve options (environment variable in brackets; a switch's variable takes 1/true/yes/on or 0/false/no/off;
a repeatable flag adds to its variable's comma-separated list):
  --listen <addr>          ${LISTEN_FORMS}; a bare port listens on 127.0.0.1
                                                           [BRIDGE_LISTEN]      default ${DEFAULT_LISTEN.host}:${DEFAULT_LISTEN.port}
  --editor <name>          embedded | photoshop | gimp     [BRIDGE_EDITOR]      default embedded
  --open <file>            open this PSD/PNG/JPEG/WebP instead of the sample document   [BRIDGE_OPEN]
  --no-sample              start with no document                                     [BRIDGE_NO_SAMPLE]
  --fonts-dir <dir>        fonts for text layers besides the machine's (repeatable)    [BRIDGE_FONTS_DIRS, comma-separated]
  --token <token>          require this access token (required off loopback)          [BRIDGE_TOKEN]
  --read-token <token>     also accept this token for reading only: methods that change nothing, events,
                           /status, /metrics; the rest answers FORBIDDEN (needs --token)   [BRIDGE_READ_TOKEN]
  --allow-origin <origin>  also allow this browser Origin (repeatable, or "*")        [BRIDGE_ALLOW_ORIGIN, comma-separated]
  --allow-host <name>      also allow this Host name (repeatable)                     [BRIDGE_ALLOW_HOST, comma-separated]
  --scripts-dir <dir>      folder of named scripts for jsx:execute (repeatable)      [BRIDGE_SCRIPTS_DIRS, comma-separated]
  --files-root <dir>       confine every path clients send (open, save, export, imports, scripts) to this
                           folder (repeatable; required off loopback unless --allow-any-path)   [BRIDGE_FILES_ROOT, comma-separated]
  --allow-any-path         listen off loopback without --files-root: token holders reach any file   [BRIDGE_ALLOW_ANY_PATH]
  --allow-editor-scripts   run Photoshop/GIMP scripts (jsx:run, jsx:execute) while confined to files roots
                                                                                      [BRIDGE_ALLOW_EDITOR_SCRIPTS]
  --no-backup              do not keep <name>.bak when a save replaces a file         [BRIDGE_NO_BACKUP]
  --no-file-import         refuse file: URIs and local paths in layer:importImage     [BRIDGE_NO_FILE_IMPORT]
  --allow-private-import   let layer:importImage fetch loopback/private URLs          [BRIDGE_ALLOW_PRIVATE_IMPORT]
  --editors <n>            how many editors, 1 to ${MAX_EDITORS}: embedded ones (embedded: about one per core minus one)
                           or GIMPs the bridge starts; with --photoshop-host or --gimp-attach, one per server
                           (leave it out or give their number); 0 with --cluster: a front door with no editor
                           of its own                                                 [BRIDGE_EDITORS]        default 1
  --photoshop-host <h[:p]> Photoshop's Remote Connections address (IPv6 as [addr]:port); repeat for one editor
                           per Photoshop machine                      [BRIDGE_PHOTOSHOP_HOST, comma-separated] default 127.0.0.1
  --photoshop-port <port>  Photoshop's Remote Connections port when a host names none [BRIDGE_PHOTOSHOP_PORT] default 49494
  --photoshop-password <p> password of every Photoshop's Remote Connections (prefer the env)  [BRIDGE_PHOTOSHOP_PASSWORD]
  --gimp-binary <path>     GIMP console binary to start                               [BRIDGE_GIMP_BINARY]    default gimp-console-2.10
  --gimp-attach <host:port> use a Script-Fu server already running instead; repeat for one editor per server
                                                                      [BRIDGE_GIMP_ATTACH, comma-separated]
  --plugins-dir <dir>      load plugins from this folder                              [BRIDGE_PLUGINS_DIR]
  --plugin <dir>           load this plugin folder (repeatable)                       [BRIDGE_PLUGINS, comma-separated]
  --plugin-isolation <m>   run every plugin in worker (own thread, memory cap, restarted on a crash), process
                           (a child process, same) or none (the bridge's thread), whatever its manifest says
                                                                                      [BRIDGE_PLUGIN_ISOLATION]
  --watch-plugins          reload a plugin when its folder changes (development)     [BRIDGE_WATCH_PLUGINS]
  --mcp-allow-scripts      offer jsx:run and jsx:execute as MCP tools on /mcp (off: a model could be talked into
                           running code)                                              [BRIDGE_MCP_ALLOW_SCRIPTS]
  --webhook <url[#types]>  POST events to this URL, signed (repeatable); #selection:changed,documentChanged picks
                           the types (default: all but previews); secret from BRIDGE_WEBHOOK_SECRET, else printed
                                                                      [BRIDGE_WEBHOOKS, space-separated]
  --webhooks-file <path>   keep the webhooks clients add (webhook:add) here, so they survive a restart; holds
                           their secrets (mode 0600)                                  [BRIDGE_WEBHOOKS_FILE]
  --cluster <nats-url>     join a cluster of bridges over NATS (JetStream on), e.g. nats://127.0.0.1:4222;
                           repeat for several servers                    [BRIDGE_CLUSTER, comma-separated]
  --cluster-name <name>    the cluster's name: its NATS subjects and buckets  [BRIDGE_CLUSTER_NAME]  default bridge
  --cluster-bridge <name>  this bridge's name, unique in the cluster; ends its editor ids (embedded-1@<name>)
                                                              [BRIDGE_CLUSTER_BRIDGE]  default <host>-<pid>
  --cluster-token <t>, --cluster-user <u> --cluster-pass <p>, --cluster-creds <file>
                           NATS credentials (prefer the env)  [BRIDGE_CLUSTER_TOKEN, _USER, _PASS, _CREDS]
  --cluster-tls-ca <file>, --cluster-tls-cert <file> --cluster-tls-key <file>
                           TLS to NATS                        [BRIDGE_CLUSTER_TLS_CA, _TLS_CERT, _TLS_KEY]
  --cluster-allow-anonymous join NATS without credentials though the bridge has a token or listens off loopback
                           (anyone NATS lets in can then run calls here)  [BRIDGE_CLUSTER_ALLOW_ANONYMOUS]
  --cluster-secret <s>     sign calls between bridges with this shared secret (16+ characters) and run only
                           calls signed with it                               [BRIDGE_CLUSTER_SECRET]
  --allow-private-webhooks let webhooks target loopback/private addresses            [BRIDGE_ALLOW_PRIVATE_WEBHOOKS]
  --log-level <level>      ${LOG_LEVELS.join(" | ")}         [BRIDGE_LOG_LEVEL]   default info
  --public-health          answer /health and /ready without the token (they carry no paths, ids or secrets;
                           /status never)                                             [BRIDGE_PUBLIC_HEALTH]
  --trust-proxy <addr>     count clients by the address this reverse proxy forwards (X-Forwarded-For's last
                           entry) against maxConnectionsPerAddress: "loopback" or the proxy's IP (repeatable)
                                                                      [BRIDGE_TRUST_PROXY, comma-separated]
  --limit <name=value>     set one named limit, e.g. maxPayloadBytes=64MiB, callTimeoutMs=60s (repeatable;
                           sizes take KiB/MiB/GiB, durations ms/s/min/h; docs/reliability.md lists them)
                                                                      [BRIDGE_LIMITS, comma-separated]

${CLIENT_USAGE}`;

/** Event types by who offers them, for `image-editor-bridge events`. */
const EVENT_SOURCES: CliCatalog["events"] = [
  ["every editor (the bridge's own events)", MAIN_EVENTS],
  ["the embedded editor", [...EMBEDDED_EVENT_TYPES, CUTOUT_EVENT, EDITOR_RESTARTED_EVENT]],
  ["Photoshop", PHOTOSHOP_EVENTS],
  ["GIMP", GIMP_EVENT_TYPES],
];

/**
 * The catalog of the offline commands, built from the modules themselves. The build writes it to
 * dist/cli/catalog.json (scripts/gen-cli-catalog.mjs), which the command reads instead of loading these modules.
 */
export function cliCatalog(): CliCatalog {
  return { usage: USAGE, version: PACKAGE.version, schema: publishSchema(BUILTIN_METHODS), events: EVENT_SOURCES };
}
