/* The command line's cluster options: `--cluster` and the NATS credentials that go with it. */
import type { ClusterOptions } from "../cluster/options.js";
import { MIN_CLUSTER_SECRET_LENGTH } from "../cluster/signing.js";

/** The flags, for `parseArgs`. */
export const CLUSTER_FLAGS = {
  cluster: { type: "string", multiple: true },
  "cluster-name": { type: "string" },
  "cluster-bridge": { type: "string" },
  "cluster-token": { type: "string" },
  "cluster-user": { type: "string" },
  "cluster-pass": { type: "string" },
  "cluster-creds": { type: "string" },
  "cluster-tls-ca": { type: "string" },
  "cluster-tls-cert": { type: "string" },
  "cluster-tls-key": { type: "string" },
  "cluster-allow-anonymous": { type: "boolean" },
  "cluster-secret": { type: "string" },
} as const;

/** The parsed flags this reads. */
export interface ClusterFlags {
  readonly cluster?: string[] | undefined;
  readonly "cluster-name"?: string | undefined;
  readonly "cluster-bridge"?: string | undefined;
  readonly "cluster-token"?: string | undefined;
  readonly "cluster-user"?: string | undefined;
  readonly "cluster-pass"?: string | undefined;
  readonly "cluster-creds"?: string | undefined;
  readonly "cluster-tls-ca"?: string | undefined;
  readonly "cluster-tls-cert"?: string | undefined;
  readonly "cluster-tls-key"?: string | undefined;
  readonly "cluster-allow-anonymous"?: boolean | undefined;
  readonly "cluster-secret"?: string | undefined;
}

/**
 * `--cluster nats://host:4222` (repeatable, `BRIDGE_CLUSTER` comma-separated) with its name, this bridge's name
 * and NATS credentials; undefined without a server. A credential flag without a server is a usage error.
 * `allowAnonymous` is `--cluster-allow-anonymous` (or its variable), read by the caller.
 */
export function clusterOf(values: ClusterFlags, env: NodeJS.ProcessEnv, usage: (message: string) => never, allowAnonymous = false): ClusterOptions | undefined {
  const fromEnv = (env["BRIDGE_CLUSTER"] ?? "").split(",").map((item) => item.trim()).filter(Boolean);
  const servers = [...fromEnv, ...(values.cluster ?? [])];
  const text = (flag: Exclude<keyof ClusterFlags, "cluster" | "cluster-allow-anonymous">, variable: string): string | undefined => values[flag] ?? (env[variable] || undefined);

  const options = {
    name: text("cluster-name", "BRIDGE_CLUSTER_NAME"),
    bridge: text("cluster-bridge", "BRIDGE_CLUSTER_BRIDGE"),
    token: text("cluster-token", "BRIDGE_CLUSTER_TOKEN"),
    user: text("cluster-user", "BRIDGE_CLUSTER_USER"),
    pass: text("cluster-pass", "BRIDGE_CLUSTER_PASS"),
    credsFile: text("cluster-creds", "BRIDGE_CLUSTER_CREDS"),
    secret: text("cluster-secret", "BRIDGE_CLUSTER_SECRET"),
  };
  const tls = { caFile: text("cluster-tls-ca", "BRIDGE_CLUSTER_TLS_CA"), certFile: text("cluster-tls-cert", "BRIDGE_CLUSTER_TLS_CERT"), keyFile: text("cluster-tls-key", "BRIDGE_CLUSTER_TLS_KEY") };
  const given = [...Object.values(options), ...Object.values(tls)].some((value) => value !== undefined) || allowAnonymous;
  if (servers.length === 0) {
    if (given) usage("the --cluster-* options need --cluster nats://host:4222 (or BRIDGE_CLUSTER)");
    return undefined;
  }
  if (options.secret !== undefined && options.secret.length < MIN_CLUSTER_SECRET_LENGTH) {
    usage(`--cluster-secret expects at least ${MIN_CLUSTER_SECRET_LENGTH} characters (every bridge of the cluster gives the same one)`);
  }
  for (const server of servers) {
    if (!/^(nats|tls|wss?):\/\/[^\s]+$/.test(server)) usage(`--cluster expects a NATS address such as nats://127.0.0.1:4222, got "${server}"`);
  }
  const hasTls = Object.values(tls).some((value) => value !== undefined);
  return { servers, ...options, ...(hasTls ? { tls } : {}), ...(allowAnonymous ? { allowAnonymous } : {}) };
}
