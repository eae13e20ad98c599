import { describe, expect, it } from "vitest";
import { parseServeArgs, type ServeOptions } from "../../src/cli/args.js";
import { UsageError } from "../../src/cli/errors.js";

const serve = (args: string[], env: NodeJS.ProcessEnv = {}): ServeOptions => parseServeArgs(["serve", ...args], env) as ServeOptions;

describe("the command line's cluster options", () => {
  it("no --cluster: no cluster at all (nothing NATS is loaded)", () => {
    expect(serve([]).cluster).toBeUndefined();
  });

  it("--cluster is repeatable after BRIDGE_CLUSTER's comma-separated list; names and credentials come from flags or the env", () => {
    const options = serve(["--cluster", "nats://10.0.0.2:4222", "--cluster-bridge", "b1", "--cluster-tls-ca", "/etc/nats/ca.pem"], {
      BRIDGE_CLUSTER: "nats://10.0.0.1:4222, tls://nats.internal:4443",
      BRIDGE_CLUSTER_NAME: "studio",
      BRIDGE_CLUSTER_BRIDGE: "from-env",
      BRIDGE_CLUSTER_USER: "bridges",
      BRIDGE_CLUSTER_PASS: "s3cret",
    });
    expect(options.cluster).toEqual({
      servers: ["nats://10.0.0.1:4222", "tls://nats.internal:4443", "nats://10.0.0.2:4222"],
      name: "studio",
      bridge: "b1",
      token: undefined,
      user: "bridges",
      pass: "s3cret",
      credsFile: undefined,
      secret: undefined,
      tls: { caFile: "/etc/nats/ca.pem", certFile: undefined, keyFile: undefined },
    });
  });

  it("--cluster-allow-anonymous (or BRIDGE_CLUSTER_ALLOW_ANONYMOUS) is the operator's consent to a NATS without credentials", () => {
    expect(serve(["--cluster", "nats://127.0.0.1:4222"]).cluster?.allowAnonymous).toBeUndefined();
    expect(serve(["--cluster", "nats://127.0.0.1:4222", "--cluster-allow-anonymous"]).cluster?.allowAnonymous).toBe(true);
    expect(serve(["--cluster", "nats://127.0.0.1:4222"], { BRIDGE_CLUSTER_ALLOW_ANONYMOUS: "1" }).cluster?.allowAnonymous).toBe(true);
    expect(() => serve(["--cluster-allow-anonymous"])).toThrow(/--cluster-\* options need --cluster/);
  });

  it("a server that is not a NATS address, or a --cluster-* option without a server, is a usage error", () => {
    expect(() => serve(["--cluster", "127.0.0.1:4222"])).toThrow(UsageError);
    expect(() => serve(["--cluster", "127.0.0.1:4222"])).toThrow(/expects a NATS address such as nats:\/\/127\.0\.0\.1:4222, got "127\.0\.0\.1:4222"/);
    expect(() => serve(["--cluster-name", "studio"])).toThrow(/--cluster-\* options need --cluster/);
    expect(() => serve([], { BRIDGE_CLUSTER_TOKEN: "t" })).toThrow(/--cluster-\* options need --cluster/);
  });
});
