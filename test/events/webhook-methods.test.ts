import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createBridge } from "../../src/bridge/bridge.js";
import { parseServeArgs, type ServeOptions } from "../../src/cli/args.js";
import { UsageError } from "../../src/cli/errors.js";
import { main } from "../../src/cli/serve.js";
import type { Harness } from "../helpers/bridge.js";
import { startOnSharedEditor } from "../helpers/shared-editor.js";
import { TestClient } from "../helpers/ws-client.js";
import { closeReceivers, Receiver, signedWith } from "../helpers/webhook-receiver.js";
import { TRANSPORTS, type ConformanceTransport } from "../conformance/_transports.js";
import { until } from "../helpers/until.js";

const rect = { x: 1, y: 2, width: 3, height: 4 };

interface View {
  id: string;
  url: string;
  types: string[];
  enabled: boolean;
  persistent: boolean;
  delivered: number;
  queued: number;
  secret?: string;
}

const folders: string[] = [];
afterEach(async () => {
  await closeReceivers();
  await Promise.all(folders.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

async function folder(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "webhooks-file-"));
  folders.push(dir);
  return dir;
}

async function ok<T>(transport: ConformanceTransport, method: string, params?: Record<string, unknown>): Promise<T> {
  const outcome = await transport.call(method, params);
  if (!outcome.ok) throw new Error(`${method} failed: ${JSON.stringify(outcome.error)}`);
  return outcome.result as T;
}

describe.each(TRANSPORTS)("webhook methods over $name", ({ make }) => {
  it("webhook:add, list, deliveries and remove: a client's webhook gets signed events until removed", async () => {
    const [first, second] = [await Receiver.start(), await Receiver.start()];
    const harness = await startOnSharedEditor({ webhooks: { allowPrivate: true } });
    const transport = await make(harness);
    const added = await ok<View>(transport, "webhook:add", { url: first.url, types: ["selection:changed"] });
    // No secret given: one is made up, answered once here and never again.
    expect(added).toMatchObject({ url: first.url, types: ["selection:changed"], enabled: true, persistent: false, queued: 0 });
    expect(added.secret).toMatch(/^[\w-]{32}$/);
    const listed = await ok<{ webhooks: View[] }>(transport, "webhook:list");
    expect(listed.webhooks.map((w) => w.id)).toEqual([added.id]);
    expect(listed.webhooks[0]).not.toHaveProperty("secret");

    const other = await harness.connect();
    await other.call("selection:set", { rect });
    const [delivery] = await first.count(1);
    expect(signedWith(added.secret!, delivery!)).toBe(true);
    expect(JSON.parse(delivery!.body)).toMatchObject({ type: "selection:changed", data: rect });
    const log = await until(
      () => ok<{ webhook: View; deliveries: Array<{ attempt: number; status: number; ok: boolean; type: string }> }>(transport, "webhook:deliveries", { id: added.id }),
      (answer) => answer.deliveries.length === 1,
    );
    expect(log.webhook).toMatchObject({ id: added.id, delivered: 1 });
    expect(log.deliveries).toMatchObject([{ attempt: 1, status: 200, ok: true, type: "selection:changed" }]);

    expect(await ok(transport, "webhook:remove", { id: added.id })).toEqual({ id: added.id, removed: true });
    expect(await ok(transport, "webhook:remove", { id: added.id })).toEqual({ id: added.id, removed: false });
    // A webhook added after the removal gets the next event; the removed one does not.
    const secret = "a-secret-of-our-own-choosing";
    const kept = await ok<View>(transport, "webhook:add", { url: second.url, types: ["selection:changed"], secret });
    expect(kept.secret).toBe(secret);
    await other.call("selection:set", { rect: null });
    const [next] = await second.count(1);
    expect(signedWith(secret, next!)).toBe(true);
    expect(first.received).toHaveLength(1);
  });

  it("refuses bad webhooks with a clear error and carries on", async () => {
    const harness = await startOnSharedEditor();
    const transport = await make(harness);
    const refused = async (params: Record<string, unknown>, method = "webhook:add") => {
      const outcome = await transport.call(method, params);
      expect(outcome.ok, JSON.stringify(params)).toBe(false);
      return outcome.error!;
    };
    // Private targets need --allow-private-webhooks.
    expect(await refused({ url: "http://127.0.0.1:9/hook", types: ["selection:changed"] })).toMatchObject({
      code: "FORBIDDEN",
      details: { capability: "webhook:private-url" },
    });
    expect(await refused({ url: "https://hooks.example.com/x", types: ["nope:never"] })).toMatchObject({ code: "BAD_REQUEST", details: { type: "nope:never" } });
    expect(await refused({ url: "https://hooks.example.com/x", types: ["selection:changed"], secret: "short" })).toMatchObject({ code: "BAD_REQUEST" });
    expect(await refused({ url: "https://hooks.example.com/x", types: [] })).toMatchObject({ code: "BAD_REQUEST" });
    expect(await refused({ url: "ftp://hooks.example.com/x", types: ["selection:changed"] })).toMatchObject({ code: "BAD_REQUEST" });
    expect(await refused({ url: "https://user:pw@hooks.example.com/x", types: ["selection:changed"] })).toMatchObject({ code: "BAD_REQUEST" });
    expect(await refused({ id: "nope" }, "webhook:enable")).toMatchObject({ code: "NOT_FOUND", details: { webhookId: "nope" } });
    expect(await refused({ id: "nope" }, "webhook:deliveries")).toMatchObject({ code: "NOT_FOUND" });
    expect((await ok<{ webhooks: View[] }>(transport, "webhook:list")).webhooks).toEqual([]);
    expect((await harness.http("/health")).status).toBe(200);
  });
});

describe("webhook:enable", () => {
  it("re-enables a webhook disabled after failures: what it queued goes out, and /ready is ok again", async () => {
    let answering = false;
    const receiver = await Receiver.start((_n, res) => res.writeHead(answering ? 200 : 503).end());
    const harness = await startOnSharedEditor({ limits: { webhookRetryInitialMs: 5, webhookDisableAfterFailures: 2 }, webhooks: { allowPrivate: true } });
    const client = await harness.connect();
    const added = (await client.call("webhook:add", { url: receiver.url, types: ["selection:changed"] })) as View;
    await client.call("selection:set", { rect });
    const disabled = await until(
      async () => ((await client.call("webhook:list")) as { webhooks: View[] }).webhooks[0]!,
      (view) => !view.enabled,
    );
    expect(disabled).toMatchObject({ enabled: false, queued: 1, delivered: 0 });
    expect(await (await harness.http("/ready")).json()).toMatchObject({ status: "degraded", reasons: [{ component: "webhooks" }] });
    answering = true;
    expect(await client.call("webhook:enable", { id: added.id })).toMatchObject({ id: added.id, enabled: true });
    const attempts = await receiver.count(3);
    expect(JSON.parse(attempts[2]!.body)).toMatchObject({ data: rect });
    // The same delivery, retried: the receiver can drop repeats by its id.
    expect(new Set(attempts.map((a) => a.headers["x-bridge-delivery"])).size).toBe(1);
    await until(
      async () => ((await client.call("webhook:list")) as { webhooks: View[] }).webhooks[0]!,
      (view) => view.delivered === 1,
    );
    expect(await (await harness.http("/ready")).json()).toMatchObject({ status: "ok", reasons: [] });
  });
});

describe("metrics", () => {
  it("count webhook deliveries, failed attempts and webhooks by state", async () => {
    const receiver = await Receiver.start((n, res) => res.writeHead(n === 1 ? 500 : 204).end());
    const harness = await startOnSharedEditor({ limits: { webhookRetryInitialMs: 5 }, webhooks: { allowPrivate: true, hooks: [{ url: receiver.url, types: ["selection:changed"] }] } });
    const client = await harness.connect();
    await client.call("selection:set", { rect });
    await receiver.count(2);
    const text = await until(
      async () => (await harness.http("/metrics")).text(),
      (body) => /^bridge_webhook_deliveries_total 1$/m.test(body),
    );
    expect(text).toMatch(/^bridge_webhook_failed_attempts_total 1$/m);
    expect(text).toMatch(/^bridge_webhook_dropped_total 0$/m);
    expect(text).toMatch(/^bridge_webhooks\{state="enabled"\} 1$/m);
    expect(text).toMatch(/^bridge_webhooks\{state="disabled"\} 0$/m);
  });
});

describe("the webhooks file", () => {
  it("keeps clients' webhooks (ids, secrets, state) across a restart, written atomically and private; configured ones stay out", async () => {
    const file = join(await folder(), "webhooks.json");
    const receiver = await Receiver.start();
    const configured = await Receiver.start();
    const options = { webhooks: { allowPrivate: true, file, hooks: [{ url: configured.url, types: ["selection:changed"] }] } };
    const first = await startOnSharedEditor(options);
    const client = await first.connect();
    const added = (await client.call("webhook:add", { url: receiver.url, types: ["selection:changed"], secret: "kept-across-restarts" })) as View;
    expect(added.persistent).toBe(true);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    const kept = JSON.parse(await readFile(file, "utf8")) as { format: number; webhooks: Array<{ id: string; url: string; secret: string }> };
    expect(kept).toEqual({ format: 1, webhooks: [{ id: added.id, url: receiver.url, types: ["selection:changed"], secret: "kept-across-restarts", enabled: true }] });
    await first.bridge.close();

    const second = await startOnSharedEditor(options);
    const again = await second.connect();
    const listed = ((await again.call("webhook:list")) as { webhooks: View[] }).webhooks;
    expect(listed.map(({ id, url, persistent }) => ({ id, url, persistent }))).toEqual([
      { id: expect.any(String), url: configured.url, persistent: false },
      { id: added.id, url: receiver.url, persistent: true },
    ]);
    await again.call("selection:set", { rect });
    const [delivery] = await receiver.count(1);
    expect(signedWith("kept-across-restarts", delivery!)).toBe(true);
    expect(await again.call("webhook:remove", { id: added.id })).toEqual({ id: added.id, removed: true });
    expect(JSON.parse(await readFile(file, "utf8"))).toEqual({ format: 1, webhooks: [] });
  });

  it("a file the bridge did not write fails the start with BAD_REQUEST naming it", async () => {
    const file = join(await folder(), "webhooks.json");
    for (const text of ["not json", JSON.stringify({ format: 2, webhooks: [] }), JSON.stringify({ format: 1, webhooks: [{ id: "x" }] })]) {
      await writeFile(file, text);
      const bridge = createBridge({ listen: { host: "127.0.0.1", port: 0 }, webhooks: { file } });
      await expect(bridge.start(), text).rejects.toMatchObject({ code: "BAD_REQUEST", details: { path: file } });
    }
  });

  it("a change the file cannot take is refused and not applied", async () => {
    const dir = join(await folder(), "gone");
    await mkdir(dir);
    const receiver = await Receiver.start();
    const harness: Harness = await startOnSharedEditor({ webhooks: { allowPrivate: true, file: join(dir, "webhooks.json") } });
    // The file's folder goes away after the start: every write fails.
    await rm(dir, { recursive: true });
    const client = await harness.connect();
    const frame = await client.send("webhook:add", { url: receiver.url, types: ["selection:changed"] });
    expect(frame).toMatchObject({ ok: false, error: { code: "BAD_REQUEST", message: expect.stringMatching(/^Cannot write the webhooks file/) } });
    expect(((await client.call("webhook:list")) as { webhooks: View[] }).webhooks).toEqual([]);
  });
});

describe("the command line", () => {
  it("--webhook URL[#types] and BRIDGE_WEBHOOKS, --webhooks-file, --allow-private-webhooks, BRIDGE_WEBHOOK_SECRET", () => {
    const env = { BRIDGE_WEBHOOKS: "https://a.example/h  https://b.example/h#selection:changed", BRIDGE_WEBHOOK_SECRET: "sixteen-or-more-chars" };
    const serve = (argv: string[], given: NodeJS.ProcessEnv) => parseServeArgs(argv, given) as ServeOptions;
    const options = serve(["serve", "--webhook", "https://c.example/h#selection:changed,documentChanged", "--webhooks-file", "/tmp/w.json", "--allow-private-webhooks"], env);
    expect(options.webhooks).toEqual({
      hooks: [{ url: "https://a.example/h" }, { url: "https://b.example/h", types: ["selection:changed"] }, { url: "https://c.example/h", types: ["selection:changed", "documentChanged"] }],
      file: "/tmp/w.json",
      allowPrivate: true,
      secret: "sixteen-or-more-chars",
    });
    expect(serve(["serve"], { BRIDGE_WEBHOOKS_FILE: "/tmp/x.json", BRIDGE_ALLOW_PRIVATE_WEBHOOKS: "1" }).webhooks).toEqual({
      hooks: [],
      file: "/tmp/x.json",
      allowPrivate: true,
      secret: undefined,
    });
    expect(() => parseServeArgs(["serve", "--webhook", "ftp://x.example/h"], {})).toThrow(UsageError);
    expect(() => parseServeArgs(["serve", "--webhook", "https://x.example/h#"], {})).toThrow(/names no event type/);
    expect(() => parseServeArgs(["serve"], { BRIDGE_WEBHOOK_SECRET: "short" })).toThrow(/at least 16 characters/);
  });

  it("serve --webhook delivers to it, signed with the secret it printed once; a private target needs the flag", async () => {
    const receiver = await Receiver.start();
    let printed = "";
    const serve = (...flags: string[]) =>
      main(["serve", "--listen", "127.0.0.1:0", "--log-level", "silent", "--webhook", `${receiver.url}#selection:changed`, ...flags], {
        handleSignals: false,
        env: {},
        stdout: { write: (text: string) => (printed += text) },
      });
    await expect(serve()).rejects.toThrow(/--allow-private-webhooks/);
    const bridge = (await serve("--allow-private-webhooks"))!;
    try {
      const secret = /sign with the secret (\S+);/.exec(printed)?.[1];
      expect(secret).toMatch(/^[\w-]{32}$/);
      const client = await TestClient.open(bridge.wsUrl);
      await client.call("selection:set", { rect });
      const [delivery] = await receiver.count(1);
      expect(signedWith(secret!, delivery!)).toBe(true);
      await client.close();
    } finally {
      await bridge.close();
    }
  });
});
