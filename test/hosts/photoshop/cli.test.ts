import { afterEach, describe, expect, it } from "vitest";
import type { Bridge } from "../../../src/bridge/bridge.js";
import { main } from "../../../src/cli/serve.js";
import { TestClient } from "../../helpers/ws-client.js";
import { startFake } from "./_setup.js";

const bridges: Bridge[] = [];
afterEach(async () => {
  await Promise.all(bridges.splice(0).map((b) => b.close()));
});

describe("serve --editor photoshop", () => {
  it("connects to Photoshop with the password from the environment and serves its document", async () => {
    const fake = await startFake({ password: "s3cret-pass" });
    let out = "";
    const argv = ["serve", "--editor", "photoshop", "--listen", "127.0.0.1:0", "--photoshop-host", "127.0.0.1", "--photoshop-port", String(fake.port), "--log-level", "silent"];
    const bridge = (await main(argv, { stdout: { write: (t: string) => (out += t) }, handleSignals: false, env: { BRIDGE_PHOTOSHOP_PASSWORD: "s3cret-pass" } }))!;
    bridges.push(bridge);
    expect(out).toContain("editor: photoshop");
    expect(out).toContain("document: Sample (320×240)");
    expect(out).not.toContain("s3cret-pass");
    const client = await TestClient.open(bridge.wsUrl);
    const info = await client.call<{ hostVersion: string; editor: string }>("getServerInfo");
    expect(info).toMatchObject({ editor: "photoshop", hostVersion: "photoshop 26.1.0" });
    await client.close();
  });

  it("with a wrong password the bridge still starts and reports the refusal without the password", async () => {
    const fake = await startFake({ password: "s3cret-pass" });
    const argv = ["serve", "--editor", "photoshop", "--listen", "127.0.0.1:0", "--photoshop-port", String(fake.port), "--photoshop-password", "guess-123", "--log-level", "silent"];
    const bridge = (await main(argv, { stdout: { write: () => true }, handleSignals: false, env: {} }))!;
    bridges.push(bridge);
    const health = (await (await fetch(`${bridge.url}/status`)).json()) as { editor: { state: string; lastError?: string } };
    expect(health.editor.state).not.toBe("ready");
    expect(JSON.stringify(health)).not.toContain("guess-123");
    const response = await fetch(`${bridge.url}/document/current`);
    expect(response.status).toBe(503);
  });
});
