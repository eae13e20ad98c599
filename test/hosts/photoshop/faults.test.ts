import sharp from "sharp";
import { describe, expect, it } from "vitest";
import { firstValueFrom } from "rxjs";
import { bridgeOn, ctx, hostOn, startFake, waitForHostReady } from "./_setup.js";

describe("the Photoshop host under faults", () => {
  it("a wrong password is a non-retryable HOST_UNAVAILABLE naming the cause, and the bridge keeps serving", async () => {
    const fake = await startFake({ password: "right-password" });
    const host = hostOn(fake, {}, "wrong-password");
    const error = await host.connect().then(
      () => undefined,
      (e: unknown) => e as { code: string; retryable: boolean; details: Record<string, unknown>; message: string },
    );
    expect(error).toMatchObject({ code: "HOST_UNAVAILABLE", retryable: false, details: { reason: "auth" } });
    expect(error?.message).toMatch(/password/);
    expect(JSON.stringify(error)).not.toContain("wrong-password");

    const harness = await bridgeOn(fake, {}, {}, "wrong-password");
    const response = await harness.http("/document/current");
    expect(response.status).toBe(503);
    expect((await harness.http("/health")).status).toBe(200);
  });

  it("a request Photoshop never answers ends in TIMEOUT at its deadline and the next call works", async () => {
    const fake = await startFake();
    const harness = await bridgeOn(fake, { limits: { callTimeoutMs: 300 } });
    const client = await harness.connect();
    fake.faults.neverAnswer = (r) => r.op === "selection.get";
    const stuck = await client.send("selection:getArea");
    expect(stuck.error).toMatchObject({ code: "TIMEOUT", retryable: true });
    fake.faults = {};
    expect((await client.send("selection:getArea")).ok).toBe(true);
  });

  it("the host itself frees a request at its signal's deadline with a retryable HOST_BUSY", async () => {
    const fake = await startFake();
    const host = hostOn(fake);
    await host.connect();
    fake.faults.neverAnswer = () => true;
    await expect(host.listDocuments(ctx(100))).rejects.toMatchObject({ code: "HOST_BUSY", retryable: true });
  });

  it("a dropped connection fails the running call with HOST_UNAVAILABLE and the bridge reconnects", async () => {
    const fake = await startFake();
    const harness = await bridgeOn(fake);
    const client = await harness.connect();
    fake.faults.dropOn = (r) => r.op === "document.list";
    const dropped = await client.send("document:list");
    expect(dropped.error).toMatchObject({ code: "HOST_UNAVAILABLE", retryable: true });
    fake.faults = {};
    await fake.waitForConnections(2);
    await waitForHostReady(harness);
    const docs = await client.call<unknown[]>("document:list");
    expect(docs).toHaveLength(1);
  });

  it("the bridge reconnects after Photoshop restarts", async () => {
    const fake = await startFake();
    const harness = await bridgeOn(fake);
    const client = await harness.connect();
    await client.call("selection:set", { rect: { x: 1, y: 2, width: 3, height: 4 } });
    await fake.stop();
    expect((await client.send("selection:getArea")).error).toMatchObject({ code: "HOST_UNAVAILABLE", retryable: true });
    await fake.restart();
    await fake.waitForConnections(2);
    await waitForHostReady(harness);
    // Fresh Photoshop state: the restarted fake has no selection.
    expect(await client.call("selection:getArea")).toBeNull();
  });

  it("a script error (type 1) answers JSX_FAILED with Photoshop's text and the link stays up", async () => {
    const fake = await startFake();
    const client = await (await bridgeOn(fake)).connect();
    fake.faults.scriptError = (r) => (r.script.includes("boom") ? "Error 8800: boom\rLine: 1\r->  boom" : undefined);
    const failed = await client.send("jsx:run", { script: "boom()" });
    expect(failed.error).toMatchObject({ code: "JSX_FAILED" });
    expect(failed.error?.message).toContain("Error 8800: boom\rLine: 1");
    expect(await client.call("jsx:run", { script: "1+1" })).toEqual({ result: "2" });
  });

  it("replies in any order reach the calls that asked for them", async () => {
    const fake = await startFake();
    const host = hostOn(fake, { maxScriptsInFlight: 32 });
    await host.connect();
    for (const name of ["a", "b", "c", "d"]) await host.createDocument!(ctx(), { width: 8, height: 8, name, background: [255, 255, 255, 255] });
    const ids = (await host.listDocuments(ctx())).map((d) => d.id);
    fake.faults.jitterMs = 40;
    const calls = Array.from({ length: 20 }, (_, i) => ids[i % ids.length]!);
    const results = await Promise.all(calls.map((id) => host.getDocument(ctx(), id)));
    expect(results.map((d) => d.id)).toEqual(calls);
    const asked = fake.requests.filter((r) => r.op === "document.get").map((r) => r.id);
    const answered = fake.replyOrder.filter((id) => asked.includes(id));
    expect(answered).toHaveLength(asked.length);
    expect(answered).not.toEqual(asked);
  });

  it("pixmaps arrive intact whatever the message order, row padding, chunking, duplicates and noise", async () => {
    const fake = await startFake();
    const harness = await bridgeOn(fake);
    const client = await harness.connect();
    fake.faults = { pixmapOrder: ["result", "pixmap", "bounds"], rowPadding: 7, dribble: true, duplicate: true, noise: true };
    const layer = (await client.call<{ id: number; bounds: unknown }[]>("document:layers"))[0]!;
    const image = await client.call<{ data: string; bounds: unknown; width: number }>("image:exportLayer", { layerId: layer.id, format: "png" });
    expect(image.bounds).toEqual(layer.bounds);
    const { data, info } = await sharp(Buffer.from(image.data.split(",")[1]!, "base64")).raw().toBuffer({ resolveWithObject: true });
    expect(info.width).toBe(image.width);
    expect([...data.subarray(0, 4)]).toEqual([255, 0, 0, 255]);
    fake.faults = { coalesce: true, pixmapOrder: ["pixmap", "bounds", "result"] };
    expect((await client.send("image:exportDocument", { maxSize: 64 })).ok).toBe(true);
  });

  it("too many scripts in flight answer HOST_BUSY at once instead of queueing without bound", async () => {
    const fake = await startFake();
    const host = hostOn(fake, { maxScriptsInFlight: 2 });
    await host.connect();
    fake.faults.neverAnswer = () => true;
    // Two run, two wait, the fifth is refused.
    const held = Array.from({ length: 4 }, () => host.listDocuments(ctx(300)));
    await expect(host.listDocuments(ctx(300))).rejects.toMatchObject({ code: "HOST_BUSY", retryable: true });
    for (const call of held) await expect(call).rejects.toMatchObject({ code: "HOST_BUSY" });
  });

  it("a lost connection rejects every call in flight with a retryable HOST_UNAVAILABLE", async () => {
    const fake = await startFake();
    const host = hostOn(fake, { maxScriptsInFlight: 8 });
    await host.connect();
    fake.faults.neverAnswer = () => true;
    const inFlight = [host.listDocuments(ctx()), host.getSelection(ctx(), undefined), host.exportDocumentImage(ctx(), { documentId: undefined, format: "png", size: { width: 32, height: 24 } })];
    await fake.waitForRequest((r) => r.op === "selection.get");
    fake.dropConnections();
    for (const call of inFlight) await expect(call).rejects.toMatchObject({ code: "HOST_UNAVAILABLE", retryable: true });
  });

  it("no call hangs: under every fault each call ends in a result or an error", async () => {
    const fake = await startFake();
    const harness = await bridgeOn(fake, { limits: { callTimeoutMs: 400, longCallTimeoutMs: 400 } });
    const client = await harness.connect();
    const faults = [
      { delayMs: 30 },
      { jitterMs: 30, coalesce: true },
      { neverAnswer: () => true },
      { dropOn: () => true },
      { scriptError: () => "Error 8800: General Photoshop error" },
      { dribble: true, noise: true, duplicate: true },
    ];
    for (const fault of faults) {
      fake.faults = fault;
      for (const [method, params] of [
        ["document:current", {}],
        ["selection:set", { rect: { x: 1, y: 1, width: 5, height: 5 } }],
        ["image:exportDocument", { maxSize: 32 }],
        ["jsx:run", { script: "1+1" }],
      ] as const) {
        const frame = await client.send(method, params);
        if (frame.ok) continue;
        // A retryable error, a script failure, or a mutation whose outcome is unknown (TIMEOUT, not retryable).
        const { code, retryable, details } = frame.error!;
        expect(retryable === true || code === "JSX_FAILED" || (code === "TIMEOUT" && details?.["outcome"] === "unknown")).toBe(true);
      }
      fake.faults = {};
      await waitForHostReady(harness);
    }
    expect((await client.send("document:current")).ok).toBe(true);
  });

  it("an unanswered keep-alive counts as a lost connection", async () => {
    const fake = await startFake();
    const host = hostOn(fake, { keepAliveIdleMs: 20, keepAliveTimeoutMs: 100 });
    await host.connect();
    fake.faults.neverAnswer = (r) => r.type === 6;
    const lost = await firstValueFrom(host.lost$);
    expect(lost).toMatchObject({ code: "HOST_UNAVAILABLE" });
    expect(fake.requests.some((r) => r.type === 6)).toBe(true);
  });

  it("an answered keep-alive keeps the link up", async () => {
    const fake = await startFake();
    const host = hostOn(fake, { keepAliveIdleMs: 20, keepAliveTimeoutMs: 1_000 });
    await host.connect();
    await fake.waitForRequest((r) => r.type === 6);
    await fake.waitForRequest((r) => r.type === 6 && r.id !== fake.requests.find((q) => q.type === 6)!.id);
    expect((await host.listDocuments(ctx())).length).toBe(1);
  });

  it("a call that takes longer than the keep-alive idle and timeout together keeps the link (Photoshop is busy, not gone)", async () => {
    const fake = await startFake();
    const host = hostOn(fake, { keepAliveIdleMs: 20, keepAliveTimeoutMs: 100 });
    await host.connect();
    // Photoshop runs one script at a time: while the slow call runs, a keep-alive would go unanswered too.
    fake.faults.neverAnswer = (r) => r.type === 6;
    fake.faults.delayMs = 400;
    let lost: unknown;
    const subscription = host.lost$.subscribe((e) => {
      lost = e;
    });
    expect((await host.listDocuments(ctx())).length).toBe(1);
    subscription.unsubscribe();
    expect(lost).toBeUndefined();
    expect(fake.requests.some((r) => r.type === 6)).toBe(false);
  });
});
