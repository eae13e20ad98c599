import { afterEach, describe, expect, it } from "vitest";
import type { Bridge } from "../../../src/bridge/bridge.js";
import { main } from "../../../src/cli/serve.js";
import { createEditorHosts } from "../../../src/hosts/factory.js";
import type { HostAdapter } from "../../../src/hosts/host.js";
import { silentLogger } from "../../../src/logger.js";
import { ctx, startFake } from "./_setup.js";

const hosts: HostAdapter[] = [];
const bridges: Bridge[] = [];
afterEach(async () => {
  await Promise.all(bridges.splice(0).map((b) => b.close()));
  await Promise.all(hosts.splice(0).map((h) => h.close()));
});

/** Resolves once every editor of the bridge is connected (read from the bridge, no sleeps). */
async function allReady(bridge: Bridge): Promise<void> {
  while (!bridge.editors().every((e) => e.state === "ready" || e.state === "busy")) {
    await new Promise((resolve) => setImmediate(resolve));
  }
}

describe("several Photoshops", () => {
  it("createEditorHosts gives one editor per Photoshop host, all with one password, each seeing only its own documents", async () => {
    const [a, b] = await Promise.all([startFake({ password: "pool-pass" }), startFake({ password: "pool-pass" })]);
    const pool = await createEditorHosts({
      editor: "photoshop",
      photoshop: { hosts: [{ host: "127.0.0.1", port: a.port }, { host: "127.0.0.1", port: b.port }], password: "pool-pass" },
      sample: true,
      logger: silentLogger(),
    });
    hosts.push(...pool);
    expect(pool.map((h) => h.kind)).toEqual(["photoshop", "photoshop"]);
    const [first, second] = pool as [HostAdapter, HostAdapter];
    const versions = await Promise.all(pool.map((h) => h.connect()));
    expect(versions).toEqual([{ hostVersion: "photoshop 26.1.0" }, { hostVersion: "photoshop 26.1.0" }]);
    expect([a.connectionsSeen, b.connectionsSeen]).toEqual([1, 1]);

    await first.createDocument!(ctx(), { width: 20, height: 10, name: "Only on A", background: [255, 255, 255, 255] });
    await second.createDocument!(ctx(), { width: 30, height: 15, name: "Only on B", background: [0, 0, 0, 0] });
    expect((await first.listDocuments(ctx())).map((d) => d.name)).toEqual(["Sample", "Only on A"]);
    expect((await second.listDocuments(ctx())).map((d) => d.name)).toEqual(["Sample", "Only on B"]);
    expect(a.requests.some((r) => JSON.stringify(r.params ?? {}).includes("Only on B"))).toBe(false);
  });

  it("--editors must match the number of Photoshop hosts", async () => {
    await expect(
      createEditorHosts({
        editor: "photoshop",
        editors: 3,
        photoshop: { hosts: [{ host: "127.0.0.1", port: 1 }], password: "" },
        sample: false,
        logger: silentLogger(),
      }),
    ).rejects.toMatchObject({ code: "BAD_REQUEST", message: expect.stringMatching(/editors is 3 but 1 Photoshop hosts/) });
  });

  it("serve with two --photoshop-host entries runs two Photoshop editors that both connect", async () => {
    const [a, b] = await Promise.all([startFake({ password: "pool-pass" }), startFake({ password: "pool-pass" })]);
    let out = "";
    const argv = ["serve", "--editor", "photoshop", "--listen", "127.0.0.1:0", "--log-level", "silent"];
    argv.push("--photoshop-host", `127.0.0.1:${a.port}`, "--photoshop-host", `[::ffff:127.0.0.1]:${b.port}`);
    const bridge = (await main(argv, {
      stdout: { write: (t: string) => (out += t) },
      handleSignals: false,
      env: { BRIDGE_PHOTOSHOP_PASSWORD: "pool-pass" },
    }))!;
    bridges.push(bridge);
    await allReady(bridge);
    expect(bridge.editors().map((e) => [e.id, e.kind])).toEqual([
      ["photoshop-1", "photoshop"],
      ["photoshop-2", "photoshop"],
    ]);
    expect([a.connectionsSeen, b.connectionsSeen]).toEqual([1, 1]);
    expect(out).toContain("editor: photoshop ×2");
    expect(out).not.toContain("pool-pass");
  });

  it("a Photoshop that refuses the password leaves the other one serving", async () => {
    const [a, b] = await Promise.all([startFake({ password: "pool-pass" }), startFake({ password: "other-pass" })]);
    const argv = ["serve", "--editor", "photoshop", "--listen", "127.0.0.1:0", "--log-level", "silent"];
    argv.push("--photoshop-host", `127.0.0.1:${a.port}`, "--photoshop-host", `127.0.0.1:${b.port}`);
    const bridge = (await main(argv, { stdout: { write: () => true }, handleSignals: false, env: { BRIDGE_PHOTOSHOP_PASSWORD: "pool-pass" } }))!;
    bridges.push(bridge);
    await b.waitForConnections(1);
    while (bridge.editors()[0]!.state !== "ready") await new Promise((resolve) => setImmediate(resolve));
    expect(bridge.editors()[1]!.state).not.toBe("ready");
    expect(bridge.hostStatus().state).toBe("ready");
  });
});
