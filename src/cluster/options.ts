/** How a bridge joins a cluster of bridges over NATS (`serve --cluster nats://host:4222`). */
export interface ClusterOptions {
  /** NATS servers, e.g. `nats://127.0.0.1:4222`; several for a NATS cluster. */
  readonly servers: readonly string[];
  /**
   * The cluster's name: the prefix of its NATS subjects and JetStream buckets, so several clusters can share one
   * NATS. Letters, digits, `_` and `-`. @default "bridge"
   */
  readonly name?: string | undefined;
  /**
   * This bridge's name in the cluster, unique there: it ends every editor id (`embedded-1@<bridge>`). Letters,
   * digits, `_` and `-`. @default the host name and process id, e.g. `build7-4122`
   */
  readonly bridge?: string | undefined;
  /** NATS authentication: a token, a user and password, or a credentials file (`.creds`, JWT and NKey seed). */
  readonly token?: string | undefined;
  readonly user?: string | undefined;
  readonly pass?: string | undefined;
  readonly credsFile?: string | undefined;
  /** TLS to NATS: a CA to trust, and a client certificate and key where the server asks for one. */
  readonly tls?: { readonly caFile?: string | undefined; readonly certFile?: string | undefined; readonly keyFile?: string | undefined } | undefined;
  /**
   * Join a NATS that lets anyone in, without credentials, though the bridge has a token or listens off loopback
   * (`--cluster-allow-anonymous`): whoever reaches that NATS can then run calls on this bridge's editors.
   * @default false (such a bridge refuses to start)
   */
  readonly allowAnonymous?: boolean | undefined;
  /**
   * A secret every bridge of the cluster shares (`--cluster-secret`, at least 16 characters): calls to other
   * bridges leave signed with it, and calls arriving unsigned, signed with another secret, too old
   * (`clusterCallMaxAgeMs`) or seen before are refused `FORBIDDEN`. A client of the cluster's NATS without it can
   * then neither forge a call nor replay one. It guards calls only: NATS credentials guard the rest.
   */
  readonly secret?: string | undefined;
}

/** Whether the bridge shows NATS who it is: a token, a user, a credentials file or a TLS client certificate. */
export function hasClusterCredentials(options: ClusterOptions): boolean {
  return (
    options.token !== undefined ||
    options.user !== undefined ||
    options.credsFile !== undefined ||
    (options.tls?.certFile !== undefined && options.tls.keyFile !== undefined)
  );
}

/** What joining without credentials means, for the refusal and the warning. */
export const ANONYMOUS_CLUSTER_RISK =
  "any client of that NATS server can send this bridge calls to run on its editors (jsx:run included), past its token and Origin checks";

/** What names in the cluster may be made of: they become NATS subject tokens and bucket names. */
export const CLUSTER_NAME_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;
