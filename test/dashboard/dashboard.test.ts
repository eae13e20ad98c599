import { existsSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { createServer, type ServerResponse } from "node:http";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { chromiumPresent, launchChromium } from "../helpers/chromium.js";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { keepForSuite, startBridge, type Harness } from "../helpers/bridge.js";
import { startOnSharedEditor } from "../helpers/shared-editor.js";
import { CLOSE_CODES } from "../../src/protocol/index.js";

const ROOT = resolve(import.meta.dirname, "../..");
const ARTIFACTS = join(ROOT, "test-artifacts");
const FAILING_PLUGIN = fileURLToPath(new URL("../plugins/fixtures/setup-throws", import.meta.url));
const STATS_PLUGIN = fileURLToPath(new URL("../plugins/fixtures/stats", import.meta.url));
const hasChromium = chromiumPresent("dashboard browser test");
// The bridge serves the dashboard from dist/ (the build compiles it); these tests need `npm run build` first.
const built = existsSync(join(ROOT, "dist/dashboard/main.js")) && existsSync(join(ROOT, "dist/dashboard/index.html"));
if (!built) console.warn("dashboard tests skipped: run npm run build first (dist/dashboard is missing)");

/** A loopback webhook receiver: `answer` decides each response by arrival number; `count(n)` waits for n requests. */
async function startReceiver(answer: (n: number, res: ServerResponse) => void): Promise<{ url: string; count(n: number): Promise<void>; close(): Promise<void> }> {
  let received = 0;
  let waiters: Array<() => void> = [];
  const server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      received += 1;
      answer(received, res);
      for (const wake of waiters.splice(0)) wake();
    });
  });
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}/hook`,
    async count(n) {
      while (received < n) await new Promise<void>((wake) => waiters.push(wake));
    },
    close() {
      waiters = [];
      server.closeAllConnections();
      return new Promise((done) => server.close(() => done()));
    },
  };
}

/** The sample document's layers, top to bottom (the Product group holds Subject and Shadow). */
const SAMPLE_LAYERS = ["Label", "Product", "Subject", "Shadow", "Background"];

describe.skipIf(!built)("the dashboard's static files", () => {
  it("the page and its scripts answer without the token; the data behind them does not", async () => {
    const harness = await startOnSharedEditor({ token: "t0ken" });
    for (const path of ["/", "/dashboard"]) {
      const page = await harness.http(path);
      expect([path, page.status, page.headers.get("content-type")]).toEqual([path, 200, "text/html; charset=utf-8"]);
      const html = await page.text();
      expect(html).toContain('src="/dashboard/assets/dashboard/main.js"');
      expect(page.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
    }
    for (const path of ["/dashboard/assets/dashboard/main.js", "/dashboard/assets/client/index.js", "/dashboard/assets/client/_internal/url.js", "/dashboard/assets/protocol/constants.js"]) {
      const asset = await harness.http(path);
      expect([path, asset.status, asset.headers.get("content-type")]).toEqual([path, 200, "text/javascript; charset=utf-8"]);
    }
    expect((await harness.http("/dashboard/assets/dashboard/dashboard.css")).headers.get("content-type")).toBe("text/css; charset=utf-8");
    for (const path of ["/status", "/plugins", "/schema", "/metrics", "/document/current"]) expect([path, (await harness.http(path)).status]).toEqual([path, 401]);
  });

  it("serves only the listed files: no other part of the package, no traversal, no Node-only client files", async () => {
    const harness = await startOnSharedEditor({ token: "t0ken" });
    const auth = { headers: { authorization: "Bearer t0ken" } };
    for (const path of [
      "/dashboard/assets/bridge.js",
      "/dashboard/assets/protocol/methods.js",
      "/dashboard/assets/client/cli.js",
      "/dashboard/assets/client/node-save.js",
      "/dashboard/assets/dashboard/main.js.map",
      "/dashboard/assets/dashboard/../bridge.js",
      "/dashboard/assets/dashboard/%2e%2e/bridge.js",
    ]) {
      // Without the token these are not public, so they are refused before any file is looked for.
      expect([path, (await harness.http(path)).status]).toEqual([path, 401]);
      const answer = await harness.http(path, auth);
      expect([path, answer.status]).toEqual([path, 404]);
      expect(await answer.json()).toMatchObject({ code: "NOT_FOUND" });
    }
    // A name the public list allows but the build did not make: not found, with or without the token.
    for (const init of [{}, auth]) expect((await harness.http("/dashboard/assets/dashboard/missing.js", init)).status).toBe(404);
  });

  it("a foreign Origin is refused even for the static files, and other verbs are not allowed", async () => {
    const harness = await startOnSharedEditor();
    const evil = await harness.http("/dashboard/assets/dashboard/main.js", { headers: { origin: "https://evil.example" } });
    expect(evil.status).toBe(403);
    expect(await evil.json()).toMatchObject({ code: "FORBIDDEN", details: { origin: "https://evil.example" } });
    expect((await harness.http("/", { headers: { origin: "https://evil.example" } })).status).toBe(403);
    const post = await harness.http("/dashboard", { method: "POST" });
    expect([post.status, post.headers.get("allow")]).toEqual([405, "GET, HEAD"]);
  });
});

describe.skipIf(!hasChromium || !built)("the dashboard in a browser", () => {
  let browser: Browser;

  beforeAll(async () => {
    await mkdir(ARTIFACTS, { recursive: true });
    browser = await launchChromium();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
  });

  /** Opens the dashboard of a bridge; page errors fail the test at its end. */
  async function open(harness: Harness, failures: string[]): Promise<Page> {
    const page = await browser.newPage({ viewport: { width: 1280, height: 1400 } });
    page.on("pageerror", (error) => failures.push(error.message));
    await page.goto(`${harness.bridge.url}/dashboard`);
    return page;
  }

  /** The layer names of the first editor card once every sample layer is listed. */
  async function layerNames(page: Page): Promise<string[]> {
    const names = page.locator(".editor-card [data-layer-id] .layer-name");
    await expect.poll(() => names.count()).toBe(SAMPLE_LAYERS.length);
    return names.allTextContents();
  }

  /** The composite preview's natural size once it has loaded. */
  async function previewSize(page: Page): Promise<{ width: number; height: number }> {
    const img = page.locator(".editor-card img.preview");
    const size = (): Promise<{ width: number; height: number }> =>
      img.evaluate((i: { naturalWidth: number; naturalHeight: number }) => ({ width: i.naturalWidth, height: i.naturalHeight }));
    await expect.poll(async () => (await size()).width).toBeGreaterThan(0);
    return size();
  }

  /** The event types shown in the log's rendered rows. */
  const loggedTypes = (page: Page): Promise<string[]> => page.locator("#event-log .log-row .log-type").allTextContents();

  /**
   * One page on one bridge with the defaults for the cases that only read it, then the ones that add clients,
   * selections and events, each counting from what the one before left (each page load has the editor encode the
   * preview and every layer's thumbnail again).
   */
  describe("one page of a bridge with the defaults", () => {
    let harness: Harness;
    let page: Page;
    let closeBridge: (() => Promise<void>) | undefined;
    const failures: string[] = [];
    /** The delivery logs the page read since it opened. */
    const logReads: string[] = [];

    beforeAll(async () => {
      harness = await startOnSharedEditor();
      closeBridge = keepForSuite(harness);
      page = await open(harness, failures);
      page.on("request", (request) => {
        if (request.url().includes("/webhooks/")) logReads.push(request.url());
      });
    });

    afterAll(async () => {
      await page?.close();
      await closeBridge?.();
    });

    it("shows the sample document's layers, its preview and the editor", async () => {
      expect(await layerNames(page)).toEqual(SAMPLE_LAYERS);
      // The sample is 800×600; the preview keeps its aspect within the 480 px cap.
      expect(await previewSize(page)).toEqual({ width: 480, height: 360 });
      await expect.poll(() => page.locator("#editors [data-editor='embedded-1']").textContent()).toContain("ready");
      expect(await page.textContent(".editor-card h3")).toBe("embedded-1 · Sample");
      expect(await page.textContent(".editor-card .active-layers")).toBe("active: Subject");
      // Every layer got its thumbnail.
      const thumbnails = (): Promise<number[]> =>
        page.locator(".layer img.thumb").evaluateAll((images: Array<{ naturalWidth: number }>) => images.map((i) => i.naturalWidth));
      await expect.poll(async () => (await thumbnails()).filter((width) => width > 0).length).toBe(SAMPLE_LAYERS.length);
      await page.screenshot({ path: join(ARTIFACTS, "dashboard-sample.png"), fullPage: true });
      expect(failures).toEqual([]);
    });

    it("with no webhook the section says none and reads no delivery log", async () => {
      await expect.poll(() => page.locator("#editors tr").count()).toBe(1);
      expect(await page.isVisible("#webhooks-none")).toBe(true);
      expect(await page.isHidden("#webhooks-table")).toBe(true);
      expect(await page.textContent("#webhook-totals")).toBe("");
      expect(logReads).toEqual([]);
      expect(failures).toEqual([]);
    });

    it("a client that connects with ?name=from-test appears in the list, with its name", async () => {
      const names = page.locator("#clients .client-name");
      await expect.poll(() => names.allTextContents()).toEqual(["dashboard"]);
      await harness.connect("/ws?name=from-test");
      const started = Date.now();
      await expect.poll(() => names.allTextContents(), { interval: 20 }).toContain("from-test");
      expect(Date.now() - started).toBeLessThan(1_000);
      expect(await page.textContent("#client-count")).toBe("2");
      expect(failures).toEqual([]);
    });

    it("a selection set by another client shows in the event log and as an outline over the preview", async () => {
      await previewSize(page);
      // The dashboard has subscribed once its own client lists its subscriptions.
      await expect.poll(() => page.locator("#clients").textContent()).toContain("selection:changed");
      const outline = page.locator(".selection-outline");
      expect(await outline.getAttribute("d")).toBe("");
      const other = await harness.connect("/ws?name=selector");
      await other.call("selection:set", { rect: { x: 100, y: 150, width: 200, height: 120 } });
      await expect.poll(() => loggedTypes(page)).toContain("selection:changed");
      expect(await page.locator("#event-log .log-row", { hasText: "selection:changed" }).textContent()).toContain('{"x":100,"y":150,"width":200,"height":120}');
      // The outline is drawn in document pixels over the preview: its box is the selection's.
      const box = (): Promise<unknown> =>
        outline.evaluate((path: { getBBox(): { x: number; y: number; width: number; height: number } }) => {
          const { x, y, width, height } = path.getBBox();
          return { x, y, width, height };
        });
      await expect.poll(box).toEqual({ x: 100, y: 150, width: 200, height: 120 });
      expect(await page.locator(".selection-overlay").getAttribute("viewBox")).toBe("0 0 800 600");
      await page.screenshot({ path: join(ARTIFACTS, "dashboard-selection.png"), fullPage: true });
      // The filter hides a type; the pause freezes the view while events keep coming.
      await page.uncheck("#event-filters input[data-type='selection:changed']");
      await expect.poll(() => loggedTypes(page)).not.toContain("selection:changed");
      await page.check("#event-filters input[data-type='selection:changed']");
      await expect.poll(() => loggedTypes(page)).toContain("selection:changed");
      await page.click("#event-pause");
      await expect.poll(() => page.locator("#event-count").textContent()).toContain("paused");
      const frozen = await page.locator("#event-log .log-row").count();
      await other.call("selection:set", { rect: { x: 10, y: 10, width: 20, height: 20 } });
      // The outline follows (the document view is not paused) while the log stays as it was.
      await expect.poll(box).toEqual({ x: 10, y: 10, width: 20, height: 20 });
      expect(await page.locator("#event-log .log-row").count()).toBe(frozen);
      await page.click("#event-pause");
      await expect.poll(() => page.locator("#event-log .log-row").count()).toBeGreaterThan(frozen);
      await page.screenshot({ path: join(ARTIFACTS, "dashboard-events.png"), fullPage: true });
      expect(failures).toEqual([]);
    });

    it("the clients list and the event log create elements only for the rows in view", { timeout: 60_000 }, async () => {
      // The cases above left their clients connected: the dashboard's own, from-test and the selector.
      const already = Number(await page.locator("#client-count").textContent());
      // Enough that drawing every row would pass the bound below more than twice over (12 rows are in view).
      const many = 100;
      for (let start = 0; start < many; start += 50) {
        await Promise.all(Array.from({ length: 50 }, (_, i) => harness.connect(`/ws?name=many-${start + i}`)));
      }
      await expect.poll(() => page.locator("#client-count").textContent()).toBe(String(already + many));
      // The list is 264 px high with 22 px rows: 12 in view plus the margin, whatever the number of clients.
      const rendered = await page.locator("#clients .client-row").count();
      expect(rendered).toBeGreaterThan(10);
      expect(rendered).toBeLessThan(40);
      // Scrolling to the end draws the last clients instead of the first.
      await page.locator("#clients").evaluate((list: { scrollTop: number; scrollHeight: number }) => {
        list.scrollTop = list.scrollHeight;
      });
      await expect.poll(() => page.locator("#clients .client-name").allTextContents()).toContain(`many-${many - 1}`);
      expect(await page.locator("#clients .client-name").allTextContents()).not.toContain("dashboard");
      expect(await page.locator("#clients .client-row").count()).toBeLessThan(40);
      // The log (300 px, 20 px rows) likewise, after more events than fit.
      const selector = await harness.connect("/ws?name=selector");
      const counted = async (): Promise<number> => Number((await page.locator("#event-count").textContent())?.split(" ")[0]);
      const logged = await counted();
      for (let i = 1; i <= 60; i++) await selector.call("selection:set", { rect: { x: i, y: i, width: 10, height: 10 } });
      await expect.poll(counted).toBeGreaterThanOrEqual(logged + 60);
      expect(await page.locator("#event-log .log-row").count()).toBeLessThan(40);
      // It follows the newest event.
      await expect.poll(() => page.locator("#event-log .log-data").allTextContents()).toContain('{"x":60,"y":60,"width":10,"height":10}');
      // Scrolled up, the reader stays where they are while events keep coming.
      const log = page.locator("#event-log");
      await log.evaluate((list: { scrollTop: number }) => {
        list.scrollTop = 0;
      });
      const before = await counted();
      await selector.call("selection:set", { rect: { x: 61, y: 61, width: 10, height: 10 } });
      await expect.poll(counted).toBeGreaterThan(before);
      expect(await log.evaluate((list: { scrollTop: number }) => list.scrollTop)).toBe(0);
      expect(await page.locator("#event-log .log-type").first().textContent()).toBe("#ready");
      expect(failures).toEqual([]);
    });
  });

  it("with a pool of editors each gets a card, and each card follows its own editor's document and selection", async () => {
    // The cards are the subject, not the editors' processes: they run inline, two processes fewer to start.
    const harness = await startBridge({ editors: 2, embedded: { isolation: "inline" } });
    const failures: string[] = [];
    const page = await open(harness, failures);
    await expect.poll(() => page.locator("#editors tr").count()).toBe(2);
    const second = page.locator(".editor-card[data-editor='embedded-2']");
    await expect.poll(() => second.locator("p.muted").textContent()).toBe("no document open");
    const client = await harness.connect("/ws?editor=embedded-2&name=second");
    await client.call("document:create", { width: 400, height: 300, name: "Second" });
    await expect.poll(() => second.locator("h3").textContent()).toBe("embedded-2 · Second");
    await client.call("selection:set", { rect: { x: 20, y: 30, width: 40, height: 50 } });
    const box = (card: typeof second): Promise<unknown> =>
      card.locator(".selection-outline").evaluate((path: { getAttribute(name: string): string | null; getBBox(): { x: number; y: number; width: number; height: number } }) => {
        if ((path.getAttribute("d") ?? "") === "") return null;
        const { x, y, width, height } = path.getBBox();
        return { x, y, width, height };
      });
    await expect.poll(() => box(second)).toEqual({ x: 20, y: 30, width: 40, height: 50 });
    expect(await second.locator(".selection-overlay").getAttribute("viewBox")).toBe("0 0 400 300");
    // The first editor's document has no selection: its card draws none.
    expect(await box(page.locator(".editor-card[data-editor='embedded-1']"))).toBeNull();
    // Only the second editor's card receives that editor's state events, and the log says whose they are.
    const selectionEditors = await page.locator("#event-log .log-row", { hasText: "selection:changed" }).locator(".log-editor").allTextContents();
    expect(selectionEditors.length).toBeGreaterThan(0);
    expect(new Set(selectionEditors)).toEqual(new Set(["embedded-2"]));
    expect(failures).toEqual([]);
    await page.close();
  });

  it("a plugin that failed to load shows its reason", async () => {
    const harness = await startOnSharedEditor({ plugins: [FAILING_PLUGIN] });
    const failures: string[] = [];
    const page = await open(harness, failures);
    await page.waitForSelector("[data-plugin='setup-throws'] .plugin-error");
    const text = await page.textContent("[data-plugin='setup-throws']");
    expect(text).toContain("failed");
    expect(text).toContain("PLUGIN_REGISTRATION_FAILED");
    expect(text).toContain("cannot reach the licence server");
    expect(await page.textContent("#bridge-status")).toBe("degraded");
    expect(failures).toEqual([]);
    await page.close();
  });

  it("a webhook's row shows its counts, and its delivery log lists a failed then a retried attempt, newest first", async () => {
    const receiver = await startReceiver((n, res) => res.writeHead(n === 1 ? 500 : 200).end());
    try {
      const harness = await startOnSharedEditor({
        token: "hook-t0ken",
        limits: { webhookRetryInitialMs: 20 },
        webhooks: { allowPrivate: true, hooks: [{ url: receiver.url, types: ["selection:changed"], secret: "s" }] },
      });
      const failures: string[] = [];
      const page = await open(harness, failures);
      await page.fill("#token-input", "hook-t0ken");
      await page.click("#token-form button[type=submit]");
      const row = page.locator("#webhooks tr[data-webhook]");
      await expect.poll(() => row.count()).toBe(1);
      expect(await page.isHidden("#webhooks-none")).toBe(true);
      expect(await row.locator(".webhook-url").textContent()).toBe(receiver.url);
      // No hook selected: the page reads no delivery log.
      const logReads: string[] = [];
      page.on("request", (request) => {
        if (request.url().includes("/deliveries")) logReads.push(request.url());
      });
      const other = await harness.connect("/ws?name=selector", { headers: { authorization: "Bearer hook-t0ken" } });
      await other.call("selection:set", { rect: { x: 1, y: 2, width: 3, height: 4 } });
      await receiver.count(2);
      await expect.poll(() => row.locator(".delivered").textContent()).toBe("1");
      expect(await row.locator(".failed").textContent()).toBe("1");
      expect(await row.locator(".state").textContent()).toBe("enabled");
      expect(await page.textContent("#webhook-totals")).toBe("1 hook · delivered 1 · failed 1 · dropped 0");
      expect(logReads).toEqual([]);
      expect(await page.isHidden("#webhook-log")).toBe(true);
      await row.locator("button").click();
      const deliveries = page.locator("#webhook-deliveries tr[data-delivery]");
      await expect.poll(() => deliveries.count()).toBe(2);
      const cells = (): Promise<string[][]> =>
        deliveries.evaluateAll((rows: Array<{ children: ArrayLike<{ textContent: string | null }> }>) => rows.map((r) => Array.from(r.children, (c) => c.textContent ?? "")));
      const shown = await cells();
      // Newest first: the retry that succeeded, then the attempt the receiver refused.
      expect(shown.map(([, type, attempt, status]) => [type, attempt, status])).toEqual([
        ["selection:changed", "2", "200"],
        ["selection:changed", "1", "500"],
      ]);
      expect(Date.parse(shown[0]![0]!)).toBeGreaterThanOrEqual(Date.parse(shown[1]![0]!));
      expect(shown[1]![5]).toBe("HTTP 500");
      expect(shown[0]![5]).toBe("");
      expect(await page.textContent("#webhook-log-url")).toBe(receiver.url);
      // Shown, the log is read with the token, and again with the status polling.
      await expect.poll(() => logReads.length).toBeGreaterThanOrEqual(2);
      await page.screenshot({ path: join(ARTIFACTS, "dashboard-webhooks.png"), fullPage: true });
      // Selecting it again hides the log.
      await row.locator("button").click();
      await expect.poll(() => page.isHidden("#webhook-log")).toBe(true);
      expect(failures).toEqual([]);
      await page.close();
    } finally {
      await receiver.close();
    }
  });

  it("a webhook disabled after failed attempts shows why, in a degraded row", async () => {
    const receiver = await startReceiver((_n, res) => res.writeHead(500).end());
    try {
      const harness = await startOnSharedEditor({
        limits: { webhookRetryInitialMs: 20, webhookDisableAfterFailures: 2 },
        webhooks: { allowPrivate: true, hooks: [{ url: receiver.url, types: ["selection:changed"], secret: "s" }] },
      });
      const failures: string[] = [];
      const page = await open(harness, failures);
      const row = page.locator("#webhooks tr[data-webhook]");
      await expect.poll(() => row.locator(".state").textContent()).toBe("enabled");
      const other = await harness.connect("/ws?name=selector");
      await other.call("selection:set", { rect: { x: 1, y: 2, width: 3, height: 4 } });
      await receiver.count(2);
      await expect.poll(() => row.locator(".state").textContent()).toBe("disabled: 2 failed attempts in a row (last: HTTP 500)");
      expect(await row.getAttribute("class")).toBe("degraded");
      expect([await row.locator(".delivered").textContent(), await row.locator(".failed").textContent(), await row.locator(".queued").textContent()]).toEqual(["0", "2", "1"]);
      expect(failures).toEqual([]);
      await page.close();
    } finally {
      await receiver.close();
    }
  });

  it(
    "acts after a confirmation: disconnects and evicts clients, enables a webhook, reloads a plugin, tries read-only calls; a closed tab disposes its clients",
    { timeout: 120_000 },
    async () => {
      // The receiver refuses two deliveries (the webhook is disabled after them), then takes every one.
      const receiver = await startReceiver((n, res) => res.writeHead(n <= 2 ? 500 : 200).end());
      try {
        const token = "act-t0ken";
        const auth = { headers: { authorization: `Bearer ${token}` } };
        const harness = await startOnSharedEditor({
          token,
          plugins: [STATS_PLUGIN],
          limits: { webhookRetryInitialMs: 20, webhookDisableAfterFailures: 2 },
          webhooks: { allowPrivate: true, hooks: [{ url: receiver.url, types: ["selection:changed"], secret: "s" }] },
        });
        const status = async (): Promise<{ clients: Array<{ idPrefix: string; name?: string; state: string }>; editors: Array<{ clients: number }> }> =>
          (await harness.http("/status", auth)).json() as never;
        const failures: string[] = [];
        const page = await open(harness, failures);
        await page.fill("#token-input", token);
        await page.click("#token-form button[type=submit]");
        const [kept, evicted] = await Promise.all([harness.connect("/ws?name=kept", auth), harness.connect("/ws?name=evicted", auth)]);
        const rowOf = (client: typeof kept) => page.locator(`#clients .client-row[data-client='${client.hello.clientId.slice(0, 8)}']`);
        await expect.poll(() => rowOf(evicted).count()).toBe(1);
        /** Clicks an act's button, checks the question, and confirms it. */
        const act = async (button: ReturnType<Page["locator"]>, question: string): Promise<void> => {
          await button.click();
          await page.waitForSelector("#act-confirm", { state: "visible" });
          expect(await page.textContent("#act-question")).toContain(question);
          await page.click("#act-yes");
        };
        const result = (): Promise<string | null> => page.textContent("#act-result");

        // Cancelled: nothing is sent.
        await rowOf(kept).locator("button[data-act=evict]").click();
        expect(await page.textContent("#act-question")).toContain(`Evict kept (${kept.hello.clientId.slice(0, 8)})?`);
        await page.click("#act-no");
        expect(await result()).toBe("cancelled");
        expect(await page.isHidden("#act-confirm")).toBe(true);
        expect(kept.ws.readyState).toBe(kept.ws.OPEN);

        // Disconnected: its socket closes with 4010 and its row stays, detached.
        await act(rowOf(kept).locator("button[data-act=disconnect]"), "Disconnect kept");
        expect((await kept.closed).code).toBe(CLOSE_CODES.DISCONNECTED);
        await expect.poll(result).toBe("disconnected kept");
        await expect.poll(() => rowOf(kept).getAttribute("class")).toContain("detached");
        // A detached client has no socket to close: only evict is offered.
        expect(await rowOf(kept).locator("button[data-act]").allTextContents()).toEqual(["evict"]);

        // Evicted: closed with 4410, and its row goes.
        await act(rowOf(evicted).locator("button[data-act=evict]"), "Evict evicted");
        expect((await evicted.closed).code).toBe(CLOSE_CODES.EVICTED);
        await expect.poll(result).toBe("evicted evicted");
        await expect.poll(() => rowOf(evicted).count()).toBe(0);
        // The editor row counts the clients the table lists (the dashboard's own and the detached one).
        const shown = async (): Promise<string[]> => [(await page.textContent("#editors td.editor-clients")) ?? "", (await page.textContent("#client-count")) ?? ""];
        await expect.poll(shown).toEqual(["2", "2"]);
        expect((await status()).editors[0]!.clients).toBe(2);

        // A webhook disabled after failed deliveries is enabled again and delivers what it queued.
        const hook = page.locator("#webhooks tr[data-webhook]");
        const select = await harness.http("/selection/set", { method: "POST", headers: { ...auth.headers, "content-type": "application/json" }, body: JSON.stringify({ rect: { x: 1, y: 2, width: 3, height: 4 } }) });
        expect(select.status).toBe(200);
        await receiver.count(2);
        await expect.poll(() => hook.locator(".state").textContent()).toContain("disabled");
        await act(hook.locator("button[data-act=enable]"), `Enable the webhook to ${receiver.url}?`);
        await receiver.count(3);
        await expect.poll(() => hook.locator(".delivered").textContent()).toBe("1");
        expect(await hook.locator(".state").textContent()).toBe("enabled");
        expect(await hook.locator("button[data-act=enable]").count()).toBe(0);

        // A plugin reloaded: its health's load time moves on.
        const loadedAt = async (): Promise<number> => ((await (await harness.http("/plugins/stats/health", auth)).json()) as { loadedAt: number }).loadedAt;
        const before = await loadedAt();
        await act(page.locator("[data-plugin='stats'] button[data-act=reload]"), "Reload the plugin stats?");
        await expect.poll(result).toBe("reloaded stats (loaded)");
        expect(await loadedAt()).toBeGreaterThan(before);

        // "Try it" offers the read-only methods only, with a form made from the params' schema.
        const offered = await page.locator("#try-method option").allTextContents();
        expect(offered).toEqual(expect.arrayContaining(["document:current", "layer:getInfoById", "image:getPreview", "server:clients", "webhook:deliveries"]));
        for (const name of ["layer:delete", "document:save", "server:disconnectClient", "document:export", "event:subscribe", "jsx:run"]) expect(offered).not.toContain(name);
        await page.selectOption("#try-method", "layer:getInfoById");
        expect(await page.locator("#try-fields [data-param]").evaluateAll((inputs: Array<{ name: string; type: string; required: boolean }>) => inputs.map((i) => [i.name, i.type, i.required]))).toEqual([
          ["documentId", "number", false],
          ["layerId", "number", true],
          ["getChildren", "select-one", false],
        ]);
        const layers = (await (await harness.http("/document/layers", auth)).json()) as Array<{ id: number; name: string; children?: Array<{ id: number; name: string }> }>;
        const subject = layers.flatMap((layer) => [layer, ...(layer.children ?? [])]).find((layer) => layer.name === "Subject")!;
        await page.fill("#try-fields [data-param=layerId]", String(subject.id));
        await act(page.locator("#try-send"), `Run layer:getInfoById {"layerId":${subject.id}}?`);
        await expect.poll(result).toBe("layer:getInfoById answered");
        expect(JSON.parse((await page.textContent("#try-answer")) ?? "")).toMatchObject({ id: subject.id, name: "Subject" });
        // A refusal shows the bridge's error.
        await page.fill("#try-fields [data-param=layerId]", "987654");
        await act(page.locator("#try-send"), "Run layer:getInfoById");
        await expect.poll(result).toContain("failed: LAYER_NOT_FOUND");
        expect(JSON.parse((await page.textContent("#try-answer")) ?? "")).toMatchObject({ error: { code: "LAYER_NOT_FOUND" } });
        // An image result shows as an image.
        await page.selectOption("#try-method", "image:getPreview");
        await page.fill("#try-fields [data-param=layerSpec]", "current");
        await page.fill("#try-fields [data-param=maxSize]", "64");
        await act(page.locator("#try-send"), 'Run image:getPreview {"layerSpec":"current","maxSize":64}?');
        await expect.poll(() => page.locator("#try-image").evaluate((img: { naturalWidth: number }) => img.naturalWidth)).toBe(64);
        expect(JSON.parse((await page.textContent("#try-answer")) ?? "")).toMatchObject({ image: { mime: "image/png", width: 64 } });
        await page.screenshot({ path: join(ARTIFACTS, "dashboard-acts.png"), fullPage: true });
        expect(failures).toEqual([]);

        // The closed tab disposes its own client (close 4000) instead of leaving it detached: only `kept` is left.
        await page.close();
        await expect.poll(async () => (await status()).clients.map((c) => c.name)).toEqual(["kept"]);
        expect((await status()).editors[0]!.clients).toBe(1);
      } finally {
        await receiver.close();
      }
    },
  );

  it("with a token-protected bridge the page asks for the token, keeps it for the tab, and then works, with the read token too", async () => {
    const harness = await startOnSharedEditor({ token: "dash-t0ken", readToken: "dash-read" });
    const failures: string[] = [];
    const page = await open(harness, failures);
    await page.waitForSelector("#token-form", { state: "visible" });
    expect(await page.isHidden("#dashboard")).toBe(true);
    await page.fill("#token-input", "wrong");
    await page.click("#token-form button[type=submit]");
    await expect.poll(() => page.locator("#token-reason").textContent()).toContain("refused");
    await page.fill("#token-input", "dash-t0ken");
    await page.click("#token-form button[type=submit]");
    expect(await layerNames(page)).toEqual(SAMPLE_LAYERS);
    expect(await page.evaluate(() => Object.values((globalThis as unknown as { sessionStorage: object }).sessionStorage))).toEqual(["dash-t0ken"]);
    await expect.poll(() => page.locator("#token-scope").textContent()).toBe("full access");
    // The full token acts: "try it" shows, and the tab's own client row offers its acts.
    await expect.poll(() => page.isVisible("#try-it")).toBe(true);
    await expect.poll(() => page.locator("#clients button[data-act]").count()).toBeGreaterThan(0);
    // A reload finds the token in the tab and asks nothing.
    await page.reload();
    expect(await layerNames(page)).toEqual(SAMPLE_LAYERS);
    expect(await page.isHidden("#token-form")).toBe(true);

    // The read token shows everything too, and the page says which scope it has.
    await page.click("#forget-token");
    await page.waitForSelector("#token-form", { state: "visible" });
    await page.fill("#token-input", "dash-read");
    await page.click("#token-form button[type=submit]");
    await expect.poll(() => page.locator("#token-scope").textContent()).toBe("read-only token");
    await page.reload();
    expect(await layerNames(page)).toEqual(SAMPLE_LAYERS);
    // The read token acts on nothing: no act button, no "try it".
    await expect.poll(() => page.locator("#token-scope").textContent()).toBe("read-only token");
    expect(await page.isHidden("#try-it")).toBe(true);
    expect(await page.locator("button[data-act]").count()).toBe(0);
    expect(failures).toEqual([]);
    await page.close();
  });
});
