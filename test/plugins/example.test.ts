import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { main } from "../../src/cli/serve.js";
import type { Bridge } from "../../src/bridge/bridge.js";
import { TestClient } from "../helpers/ws-client.js";

const EXAMPLES = fileURLToPath(new URL("../../examples/plugins/", import.meta.url));

describe("the example plugin", () => {
  it("serve --plugins-dir examples/plugins loads layer-stats; a client calls its method and receives its event", async () => {
    const bridge = (await main(["serve", "--listen", "127.0.0.1:0", "--plugins-dir", EXAMPLES, "--log-level", "silent"], {
      handleSignals: false,
      env: {},
      stdout: { write: () => true },
    })) as Bridge;
    const clients: TestClient[] = [];
    try {
      const plugins = (await (await fetch(`${bridge.url}/plugins`)).json()) as { plugins: unknown[]; failed: unknown[] };
      expect(plugins).toEqual({ plugins: [{ id: "layer-stats" }], failed: [] });
      const client = await TestClient.open(`ws://127.0.0.1:${bridge.port}/ws/layer-stats`);
      clients.push(client);
      await client.call("event:subscribe", { type: "layer-stats:updated" });
      const summary = await client.call<{ layers: number; byKind: Record<string, number>; large: string[] }>("layer-stats:summary");
      expect(summary.layers).toBe(5);
      expect(summary.byKind).toEqual({ pixel: 3, group: 1, background: 1 });
      expect(summary.large).toContain("Background");
      const event = await client.next((f) => f.type === "layer-stats:updated");
      expect(event.data).toEqual(summary);
      // The same numbers over HTTP, and a selection change pushes a refresh.
      expect(await (await fetch(`${bridge.url}/plugins/layer-stats/summary`)).json()).toEqual(summary);
      const root = await TestClient.open(`ws://127.0.0.1:${bridge.port}/ws`);
      clients.push(root);
      await root.call("selection:set", { rect: { x: 0, y: 0, width: 10, height: 10 } });
      await client.nth((f) => f.type === "layer-stats:updated", 3);
    } finally {
      await Promise.all(clients.map((c) => c.close()));
      await bridge.close();
    }
  });
});
