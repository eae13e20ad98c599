import { describe, expect, it } from "vitest";
import { bridgeOn, startFake, waitForHostReady } from "./_setup.js";
import type { FakePhotoshop } from "../../fakes/photoshop/server.js";

const subscribed = (fake: FakePhotoshop, name: string, present = true): Promise<void> => fake.waitForSubscription(name, present);

describe("Photoshop events", () => {
  it("selection:changed subscribes imageChanged in Photoshop only while a client listens, and reports the new selection", async () => {
    const fake = await startFake();
    const client = await (await bridgeOn(fake)).connect();
    expect(fake.subscribedEvents()).toEqual([]);
    await client.call("event:subscribe", { type: "selection:changed" });
    await subscribed(fake, "imageChanged");
    await client.call("selection:set", { rect: { x: 5, y: 6, width: 7, height: 8 } });
    const event = await client.next((f) => f.type === "selection:changed");
    expect(event.data).toEqual({ x: 5, y: 6, width: 7, height: 8 });
    await client.call("event:unsubscribe", { type: "selection:changed" });
    await subscribed(fake, "imageChanged", false);
  });

  it("layer:selectionChange reports the active layers after layer:select", async () => {
    const fake = await startFake();
    const client = await (await bridgeOn(fake)).connect();
    await client.call("event:subscribe", { type: "layer:selectionChange" });
    await subscribed(fake, "imageChanged");
    const layers = await client.call<{ id: number }[]>("document:layers");
    await client.call("layer:select", { ids: [layers[2]!.id] });
    const event = await client.next((f) => f.type === "layer:selectionChange");
    expect((event.data as { id: number }[]).map((l) => l.id)).toEqual([layers[2]!.id]);
  });

  it("Photoshop's own events pass through as their own names, and are re-subscribed after a reconnect", async () => {
    const fake = await startFake();
    const harness = await bridgeOn(fake);
    const client = await harness.connect();
    await client.call("event:subscribe", { type: "toolChanged" });
    await subscribed(fake, "toolChanged");
    fake.emitEvent("toolChanged", "moveTool");
    expect((await client.next((f) => f.type === "toolChanged")).data).toBe("moveTool");
    fake.dropConnections();
    await fake.waitForConnections(2);
    await waitForHostReady(harness);
    await subscribed(fake, "toolChanged");
    fake.emitEvent("toolChanged", "lassoTool");
    const second = await client.nth((f) => f.type === "toolChanged", 2);
    expect(second.data).toBe("lassoTool");
  });

  it("event data is read by what each event carries: a colour that looks like a number stays a string", async () => {
    const fake = await startFake();
    const client = await (await bridgeOn(fake)).connect();
    await client.call("event:subscribe", { type: "foregroundColorChanged" });
    await client.call("event:subscribe", { type: "currentDocumentChanged" });
    await subscribed(fake, "foregroundColorChanged");
    await subscribed(fake, "currentDocumentChanged");
    fake.emitEvent("foregroundColorChanged", "112233");
    fake.emitEvent("foregroundColorChanged", "5e5555");
    fake.emitEvent("currentDocumentChanged", "104");
    expect((await client.next((f) => f.type === "foregroundColorChanged")).data).toBe("112233");
    expect((await client.nth((f) => f.type === "foregroundColorChanged", 2)).data).toBe("5e5555");
    expect((await client.next((f) => f.type === "currentDocumentChanged")).data).toBe(104);
  });
});
