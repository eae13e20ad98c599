import { Observable } from "rxjs";
import { describe, expect, it } from "vitest";
import { EVENT_SCHEMAS } from "../../src/protocol/index.js";
import { startOnSharedEditor } from "../helpers/shared-editor.js";
import { ScriptedHost } from "../helpers/scripted-host.js";

const rect = { x: 10, y: 10, width: 20, height: 20 };

describe("event subscriptions", () => {
  it("a client gets only the events it subscribed to", async () => {
    const harness = await startOnSharedEditor();
    const [selection, layers, none] = [await harness.connect(), await harness.connect(), await harness.connect()];
    await selection.call("event:subscribe", { type: "selection:changed" });
    await layers.call("event:subscribe", { type: "layer:selectionChange" });
    const doc = await none.call<{ activeLayerIds: number[] }>("document:current");
    await none.call("selection:set", { rect });
    await none.call("layer:select", { ids: doc.activeLayerIds });
    const changed = await selection.next((f) => f.type === "selection:changed");
    expect(EVENT_SCHEMAS["selection:changed"].parse(changed.data)).toEqual(rect);
    const selected = await layers.next((f) => f.type === "layer:selectionChange");
    expect(EVENT_SCHEMAS["layer:selectionChange"].parse(selected.data)?.map((l) => l.id)).toEqual(doc.activeLayerIds);
    // A round trip on each socket after the events proves nothing else was queued for it.
    await Promise.all([selection.call("getServerInfo"), layers.call("getServerInfo"), none.call("getServerInfo")]);
    expect(selection.events("layer:selectionChange")).toHaveLength(0);
    expect(layers.events("selection:changed")).toHaveLength(0);
    expect(none.frames.filter((f) => f.seq !== undefined)).toHaveLength(0);
  });

  it("events arrive in order with increasing seq, and stop after unsubscribing", async () => {
    const harness = await startOnSharedEditor();
    const client = await harness.connect();
    expect(await client.call("event:subscribe", { type: "selection:changed" })).toEqual({ ok: true, type: "selection:changed", subscribed: true });
    expect(await client.call("event:subscribe", { type: "selection:changed" })).toEqual({ ok: true, type: "selection:changed", subscribed: true });
    for (let x = 0; x < 5; x++) await client.call("selection:set", { rect: { ...rect, x } });
    await client.nth((f) => f.type === "selection:changed", 5);
    const got = client.events("selection:changed");
    expect(got.map((f) => f.seq)).toEqual([1, 2, 3, 4, 5]);
    expect(got.map((f) => (f.data as { x: number }).x)).toEqual([0, 1, 2, 3, 4]);
    expect(await client.call("event:unsubscribe", { type: "selection:changed" })).toEqual({
      ok: true,
      type: "selection:changed",
      subscribed: false,
    });
    await client.call("selection:set", { rect: null });
    await client.call("getServerInfo");
    expect(client.events("selection:changed")).toHaveLength(5);
  });

  it("layer:previewChange carries a preview of the newly active layer", async () => {
    const harness = await startOnSharedEditor();
    const client = await harness.connect();
    await client.call("event:subscribe", { type: "layer:previewChange" });
    const layers = await client.call<Array<{ id: number }>>("document:layers");
    await client.call("layer:select", { ids: [layers[0]!.id] });
    const event = await client.next((f) => f.type === "layer:previewChange");
    const preview = EVENT_SCHEMAS["layer:previewChange"].parse(event.data);
    expect(preview?.id).toBe(layers[0]!.id);
  });

  it("an unknown event type answers BAD_REQUEST listing the accepted types", async () => {
    const client = await (await startOnSharedEditor()).connect();
    const frame = await client.send("event:subscribe", { type: "bogus" });
    expect(frame.error?.code).toBe("BAD_REQUEST");
    expect(frame.error?.details?.["accepted"]).toEqual(expect.arrayContaining(["#ready", "selection:changed"]));
  });

  it("#ready is sticky: a late subscriber receives it once right away", async () => {
    const harness = await startOnSharedEditor();
    const client = await harness.connect();
    await client.call("event:subscribe", { type: "#ready" });
    const ready = await client.next((f) => f.type === "#ready");
    expect(EVENT_SCHEMAS["#ready"].parse(ready.data)).toEqual({ port: harness.bridge.port, plugins: [] });
    await client.call("event:subscribe", { type: "#ready" });
    await client.call("getServerInfo");
    expect(client.events("#ready")).toHaveLength(1);
  });

  it("#closing {process-exit} reaches subscribers before their sockets close with 1001", async () => {
    const harness = await startOnSharedEditor();
    const client = await harness.connect();
    const bystander = await harness.connect();
    await client.call("event:subscribe", { type: "#closing" });
    await harness.bridge.close();
    expect((await client.closed).code).toBe(1001);
    expect(client.events("#closing").map((f) => f.data)).toEqual([{ reason: "process-exit" }]);
    expect(bystander.events("#closing")).toHaveLength(0);
  });
});

describe("the selection watcher", () => {
  it("runs while someone subscribes or keeps it alive with selection:change, and stops after", async () => {
    const host = new ScriptedHost();
    let watchers = 0;
    const source = host.events("selection:changed")!;
    host.events = (type) =>
      type === "selection:changed"
        ? new Observable((subscriber) => {
            watchers++;
            const sub = source.subscribe(subscriber);
            return () => {
              watchers--;
              sub.unsubscribe();
            };
          })
        : undefined;
    const harness = await startOnSharedEditor({ host });
    const [a, b] = [await harness.connect(), await harness.connect()];
    await a.call("event:subscribe", { type: "selection:changed" });
    await b.call("event:subscribe", { type: "selection:changed" });
    expect(watchers).toBe(1);
    expect(await b.call("selection:change")).toEqual({ ok: true, watching: true });
    await a.call("event:unsubscribe", { type: "selection:changed" });
    await b.call("event:unsubscribe", { type: "selection:changed" });
    expect(watchers).toBe(1); // b's selection:change keeps it running
    expect(await b.call("selection:change", { enabled: false })).toEqual({ ok: true, watching: false });
    expect(watchers).toBe(0);
  });
});

describe("a failing host event stream", () => {
  it("is watched again and subscribers keep receiving events", async () => {
    const host = new ScriptedHost();
    const source = host.events("selection:changed")!;
    let subscriptions = 0;
    let rewatched!: () => void;
    const resubscribed = new Promise<void>((resolve) => (rewatched = resolve));
    host.events = (type) =>
      type === "selection:changed"
        ? new Observable((subscriber) => {
            subscriptions++;
            if (subscriptions === 1) {
              subscriber.error(new Error("watcher crashed"));
              return undefined;
            }
            const sub = source.subscribe(subscriber);
            rewatched();
            return () => sub.unsubscribe();
          })
        : undefined;
    const harness = await startOnSharedEditor({ host });
    const client = await harness.connect();
    await client.call("event:subscribe", { type: "selection:changed" });
    await resubscribed;
    await client.call("selection:set", { rect });
    expect((await client.next((f) => f.type === "selection:changed")).data).toEqual(rect);
    expect(subscriptions).toBe(2);
  });
});
