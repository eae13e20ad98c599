import { once } from "node:events";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createRequire } from "node:module";
import { afterEach, describe, expect, it } from "vitest";
import type { Bridge } from "../../../src/bridge/bridge.js";
import { TestClient } from "../../helpers/ws-client.js";
import { startFake } from "./_setup.js";

const require = createRequire(import.meta.url);
const { createGenerator } = require("generator-core/lib/generator.js") as { createGenerator(loggerManager: unknown): never };
const { createLoggerManager } = require("generator-core/lib/logging.js") as { createLoggerManager(level: number): unknown };

interface PluginEntry {
  init(generator: unknown, config: unknown, logger: unknown): Promise<Bridge | undefined>;
  loadBridge(): Promise<unknown>;
  health: { status: string; error?: string };
}

/** The CommonJS entry as generator-core loads it, reading the TypeScript sources instead of `dist/`. */
function loadEntry(): PluginEntry {
  const entry = require("../../../photoshop-plugin/main.cjs") as PluginEntry;
  entry.loadBridge = () => import("../../../src/photoshop-plugin.js");
  return entry;
}

const lines: string[] = [];
const logger = {
  info: (...args: unknown[]) => lines.push(args.map(String).join(" ")),
  error: (...args: unknown[]) => lines.push(args.map(String).join(" ")),
  warn() {},
  debug() {},
};
const cleanup: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

describe("the Generator plugin entry", () => {
  it("declares itself to generator-core: name, main, core version range", () => {
    const pkg = require("../../../photoshop-plugin/package.json") as Record<string, string>;
    expect(pkg["name"]).toBe("image-editor-bridge");
    expect(require.resolve("../../../photoshop-plugin")).toMatch(/main\.cjs$/);
    expect(pkg["generator-core-version"]).toBeTruthy();
  });

  it("starts the bridge on a real generator connected to Photoshop, serving documents, pixels and events", async () => {
    const fake = await startFake();
    const generator = createGenerator(createLoggerManager(0)) as unknown as { start(o: unknown): PromiseLike<void>; shutdown(): void };
    await generator.start({ hostname: "127.0.0.1", port: fake.port, password: fake.password, config: {} });
    cleanup.push(() => generator.shutdown());
    const entry = loadEntry();
    const bridge = (await entry.init(generator, { listen: "127.0.0.1:0", logLevel: "silent" }, logger))!;
    cleanup.push(() => bridge.close());
    expect(entry.health.status).toBe("running");
    expect(lines.some((l) => l.includes(process.version))).toBe(true);

    const client = await TestClient.open(bridge.wsUrl);
    cleanup.push(() => client.close());
    expect(await client.call("document:current")).toMatchObject({ name: "Sample" });
    const layer = (await client.call<{ id: number; bounds: unknown }[]>("document:layers"))[0]!;
    const image = await client.call<{ bounds: unknown }>("image:exportLayer", { layerId: layer.id });
    expect(image.bounds).toEqual(layer.bounds);
    expect((await client.send("image:exportDocument", { maxSize: 50 })).ok).toBe(true);
    expect(await client.call("jsx:run", { script: "1+1" })).toEqual({ result: "2" });

    await client.call("event:subscribe", { type: "toolChanged" });
    await fake.waitForSubscription("toolChanged");
    fake.emitEvent("toolChanged", "moveTool");
    expect((await client.next((f) => f.type === "toolChanged")).data).toBe("moveTool");
  });

  it("on a Node too old for the bridge, runs it under a system Node and relays the generator: documents, pixels, events, scripts, close", async () => {
    const fake = await startFake();
    const generator = createGenerator(createLoggerManager(0)) as unknown as { start(o: unknown): PromiseLike<void>; shutdown(): void };
    await generator.start({ hostname: "127.0.0.1", port: fake.port, password: fake.password, config: {} });
    cleanup.push(() => generator.shutdown());
    const entry = loadEntry();
    // `relay: true` does what Photoshop's Node 18 would: the bridge (dist/, built by `npm test`) runs in a child.
    const relayed = (await entry.init(generator, { listen: "127.0.0.1:0", logLevel: "silent", relay: true }, logger)) as unknown as {
      wsUrl: string;
      pid: number;
      close(): Promise<void>;
    };
    expect(entry.health).toMatchObject({ status: "running" });
    cleanup.push(() => relayed.close());
    expect(relayed.pid).not.toBe(process.pid);

    const client = await TestClient.open(relayed.wsUrl);
    cleanup.push(() => client.close());
    expect(await client.call("document:current")).toMatchObject({ name: "Sample" });
    const layer = (await client.call<{ id: number; bounds: unknown }[]>("document:layers"))[0]!;
    const image = await client.call<{ bounds: unknown }>("image:exportLayer", { layerId: layer.id });
    expect(image.bounds).toEqual(layer.bounds);
    expect(await client.call("jsx:run", { script: "1+1" })).toEqual({ result: "2" });
    await client.call("event:subscribe", { type: "toolChanged" });
    await fake.waitForSubscription("toolChanged");
    fake.emitEvent("toolChanged", "moveTool");
    expect((await client.next((f) => f.type === "toolChanged")).data).toBe("moveTool");

    await client.call("event:subscribe", { type: "#closing" });
    await relayed.close();
    expect((await client.next((f) => f.type === "#closing")).data).toEqual({ reason: "host-close" });
  });

  it("on a Node too old for the bridge and no newer Node to be found, fails with what to install or set", async () => {
    const entry = loadEntry();
    const result = await entry.init({ on() {} }, { relay: true, nodePath: "/nonexistent/node" }, logger);
    expect(result).toBeUndefined();
    expect(entry.health.status).toBe("failed");
    expect(entry.health.error).toMatch(/too old for the bridge .*install Node 20 or later, or set nodePath/);
  });

  it("jsx:run answers a script's text exactly, even with a carriage return or text that looks like JSON", async () => {
    const fake = await startFake();
    const generator = createGenerator(createLoggerManager(0)) as unknown as { start(o: unknown): PromiseLike<void>; shutdown(): void };
    await generator.start({ hostname: "127.0.0.1", port: fake.port, password: fake.password, config: {} });
    cleanup.push(() => generator.shutdown());
    const bridge = (await loadEntry().init(generator, { listen: "127.0.0.1:0", logLevel: "silent" }, logger))!;
    cleanup.push(() => bridge.close());
    const client = await TestClient.open(bridge.wsUrl);
    cleanup.push(() => client.close());
    expect(await client.call("jsx:run", { script: "'line one\\rline two'" })).toEqual({ result: "line one\rline two" });
    expect(await client.call("jsx:run", { script: "'007'" })).toEqual({ result: "007" });
    expect(await client.call("jsx:run", { script: "var a = 2; a * 21" })).toEqual({ result: "42" });
    expect((await client.send("jsx:run", { script: "null.x" })).error).toMatchObject({ code: "JSX_FAILED" });
  });

  it("emits #closing {reason: host-close} when Photoshop goes away, then closes the sockets", async () => {
    const fake = await startFake();
    const generator = createGenerator(createLoggerManager(0)) as unknown as NodeJS.EventEmitter & { start(o: unknown): PromiseLike<void>; shutdown(): void };
    await generator.start({ hostname: "127.0.0.1", port: fake.port, password: fake.password, config: {} });
    cleanup.push(() => generator.shutdown());
    const bridge = (await loadEntry().init(generator, { listen: "127.0.0.1:0", logLevel: "silent" }, logger))!;
    cleanup.push(() => bridge.close());
    const client = await TestClient.open(bridge.wsUrl);
    await client.call("event:subscribe", { type: "#closing" });
    const closed = once(generator, "close");
    fake.dropConnections();
    await closed;
    expect((await client.closed).code).toBe(1001);
    expect(client.events("#closing").map((f) => f.data)).toEqual([{ reason: "host-close" }]);
  });

  it("the entry imports the ESM bridge itself from the package folder (here a stand-in under packageDir)", async () => {
    const packageDir = await mkdtemp(join(tmpdir(), "bridge-package-"));
    cleanup.push(() => rm(packageDir, { recursive: true, force: true }));
    await mkdir(join(packageDir, "dist"), { recursive: true });
    await writeFile(join(packageDir, "package.json"), '{"type":"module"}');
    await writeFile(
      join(packageDir, "dist", "photoshop-plugin.js"),
      "export async function startPlugin(generator, config) { return { started: config.packageDir, generator: generator.name }; }",
    );
    delete require.cache[require.resolve("../../../photoshop-plugin/main.cjs")];
    const entry = require("../../../photoshop-plugin/main.cjs") as PluginEntry;
    const result = await entry.init({ name: "simulated" }, { packageDir }, logger);
    expect(result).toEqual({ started: packageDir, generator: "simulated" });
    expect(entry.health.status).toBe("running");
  });

  it("a start-up failure is logged and kept in health, never thrown at generator-core", async () => {
    const entry = loadEntry();
    const bridge = await entry.init({ on() {} }, { listen: "not an address" }, logger);
    expect(bridge).toBeUndefined();
    expect(entry.health).toMatchObject({ status: "failed" });
    expect(entry.health.error).toMatch(/listen/);
  });
});
