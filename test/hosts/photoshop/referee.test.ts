/*
 * The referee: Adobe's own client code (generator-core 3.11.5, a test-only devDependency) driven against the
 * fake Photoshop, so the fake is held to the real protocol rather than to our client's reading of it.
 */
import { once } from "node:events";
import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";
import { buildScript } from "../../../src/hosts/photoshop/operations.js";
import { startFake } from "./_setup.js";
import { afterEach } from "vitest";

const require = createRequire(import.meta.url);
const { createClient } = require("generator-core/lib/photoshop.js") as {
  createClient(options: Record<string, unknown>, onConnect: undefined, logger: unknown): AdobeClient;
};
const { createGenerator } = require("generator-core/lib/generator.js") as { createGenerator(loggerManager: unknown): AdobeGenerator };
const { createLoggerManager } = require("generator-core/lib/logging.js") as { createLoggerManager(level: number): unknown };

interface AdobeClient extends NodeJS.EventEmitter {
  sendCommand(script: string, sharedEngineSafe?: boolean): number;
  sendKeepAlive(): number;
  disconnect(): void;
}
interface AdobeGenerator extends NodeJS.EventEmitter {
  start(options: Record<string, unknown>): PromiseLike<unknown>;
  evaluateJSXString(script: string): PromiseLike<unknown>;
  getPixmap(documentId: number, layerSpec: unknown, settings: Record<string, unknown>): PromiseLike<{ width: number; height: number; bounds: unknown; pixels: Buffer }>;
  getDocumentInfo(documentId?: number): PromiseLike<{ id: number }>;
  onPhotoshopEvent(name: string, fn: (data: unknown) => void): void;
  shutdown(): void;
}

const quiet = { debug() {}, info() {}, warn() {}, warning() {}, error() {}, log() {} };
const started: Array<() => void> = [];
afterEach(() => {
  for (const stop of started.splice(0)) stop();
});

/** Resolves with the next `message` (or `error`) event of an id. */
function reply(client: AdobeClient, id: number, kind: "message" | "error" = "message"): Promise<unknown> {
  return new Promise((resolve) => {
    const listener = (...args: unknown[]): void => {
      const [gotId, value] = kind === "message" ? args : [(args[0] as { id: number }).id, (args[0] as { body: string }).body];
      if (gotId !== id) return;
      client.off(kind, listener);
      resolve(value);
    };
    client.on(kind, listener);
  });
}

async function adobeClient(port: number, password: string): Promise<AdobeClient> {
  const client = createClient({ hostname: "127.0.0.1", port, password }, undefined, quiet);
  started.push(() => client.disconnect());
  client.on("error", () => {});
  return client;
}

async function adobeGenerator(port: number, password: string): Promise<AdobeGenerator> {
  const generator = createGenerator(createLoggerManager(0));
  started.push(() => generator.shutdown());
  await generator.start({ hostname: "127.0.0.1", port, password, config: {} });
  return generator;
}

describe("generator-core against the fake Photoshop", () => {
  it("PhotoshopClient round-trips scripts, shared-engine scripts, script errors and keep-alives", async () => {
    const fake = await startFake();
    const client = await adobeClient(fake.port, fake.password);
    await once(client, "connect");
    const id = client.sendCommand("1+1");
    expect(await reply(client, id)).toBe(2);
    const shared = client.sendCommand("1+1", true);
    expect(await reply(client, shared)).toBe(2);
    expect(fake.requests.at(-1)?.type).toBe(10);
    const failing = client.sendCommand("throw new Error('x')");
    expect(String(await reply(client, failing, "error"))).toContain("Error 8800");
    const ping = client.sendKeepAlive();
    expect(await reply(client, ping)).toBe("Yep, still alive");
    // The fake decrypts with the SDK's IV, generator-core encrypts with its own: ids differ by exactly the IV
    // difference on the far side, and come back intact because the fake echoes them verbatim.
    expect(fake.requests[0]!.id).toBe((id ^ 0x5d260000) >>> 0);
  });

  it("PhotoshopClient hears a communications error when the password is wrong", async () => {
    const fake = await startFake({ password: "the-right-one" });
    const client = await adobeClient(fake.port, "not-it");
    await once(client, "connect");
    const error = once(client, "communicationsError");
    client.sendCommand("1+1");
    expect(String((await error)[0])).toContain("communication error: 1");
  });

  it("Generator.start() succeeds, events are delivered, pixmaps and document info arrive, and the bridge's scripts answer", async () => {
    const fake = await startFake();
    const generator = await adobeGenerator(fake.port, fake.password);
    const tools: unknown[] = [];
    const got = new Promise<void>((resolve) =>
      generator.onPhotoshopEvent("toolChanged", (data) => {
        tools.push(data);
        resolve();
      }),
    );
    await fake.waitForSubscription("toolChanged");
    fake.emitEvent("toolChanged", "moveTool");
    await got;
    expect(tools).toEqual(["moveTool"]);

    const info = await generator.getDocumentInfo();
    const doc = fake.model.docs[0]!;
    expect(info.id).toBe(doc.id);
    const title = doc.layers[0]!;
    fake.faults.pixmapOrder = ["pixmap", "result", "bounds"];
    const pixmap = await generator.getPixmap(doc.id, title.id, {});
    expect([pixmap.width, pixmap.height]).toEqual([title.right - title.left, title.bottom - title.top]);
    expect(pixmap.bounds).toEqual({ left: title.left, top: title.top, right: title.right, bottom: title.bottom });
    expect([...pixmap.pixels.subarray(0, 4)]).toEqual([255, 255, 0, 0]);

    fake.faults = { jitterMs: 30 };
    const sums = await Promise.all(Array.from({ length: 20 }, (_, i) => generator.evaluateJSXString(`${i}+1`)));
    expect(sums).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));

    const envelope = await generator.evaluateJSXString(buildScript("document.get", {}));
    expect(envelope).toMatchObject({ ok: true, result: { name: "Sample", width: 320 } });
  });

  it("a dropped connection reaches generator-core as close", async () => {
    const fake = await startFake();
    const generator = await adobeGenerator(fake.port, fake.password);
    const closed = once(generator, "close");
    fake.dropConnections();
    await closed;
  });
});
