// What the dashboard costs. Two figures, each beside a baseline measured in the same run:
//
//   idle CPU:   user + system CPU time of the bridge process (alone in its own child process:
//               `bridge-process.js`), as a share of one core, over IDLE_MS of an idle bridge with the dashboard
//               open in headless Chromium (its status polling, plugin health reads and open WebSocket) vs the same bridge
//               idle with no page open. Target: less than 2 percentage points added.
//   page busy:  the page's main-thread busy time per second (Chrome's `TaskDuration` metric over CDP: every task
//               the renderer's main thread ran, not only long ones) with 1,000 WebSocket clients connected (named,
//               each subscribed to `selection:changed`, so the clients list has 1,000 rows to refresh every poll)
//               vs with none. Also the count of long tasks (over 50 ms) seen by a PerformanceObserver. (info)
//
// Rounds alternate which side goes first; figures are medians over rounds.
//
//   node bench/dashboard.js   (after `npm run build`; needs /usr/bin/chromium, skipped with a message without it)
//
// Environment: BENCH_DASHBOARD_ROUNDS (1), BENCH_DASHBOARD_IDLE_MS (30000), BENCH_DASHBOARD_BUSY_MS (10000),
// BENCH_DASHBOARD_CLIENTS (1000).
import { existsSync } from "node:fs";
import { startBridgeProcess } from "./_bridge-process.js";
import { closeAll, fmtMs, fmtRatio, log, median, openMany, printIfMain, sleep, verdict } from "./_lib.js";

const CHROMIUM = "/usr/bin/chromium";
const ROUNDS = Number(process.env.BENCH_DASHBOARD_ROUNDS ?? 1);
const IDLE_MS = Number(process.env.BENCH_DASHBOARD_IDLE_MS ?? 30_000);
const BUSY_MS = Number(process.env.BENCH_DASHBOARD_BUSY_MS ?? 10_000);
const CLIENTS = Number(process.env.BENCH_DASHBOARD_CLIENTS ?? 1_000);
/** Percentage points of one core the open dashboard may add to an idle bridge. */
const IDLE_CPU_TARGET_POINTS = 2;
/** Time for the page to load, connect and draw before a measurement starts. */
const SETTLE_MS = 2_000;


/** Opens the dashboard and waits until it has drawn the sample document's layers. */
async function openDashboard(browser, url) {
  const page = await browser.newPage({ viewport: { width: 1280, height: 1400 } });
  await page.goto(`${url}/`);
  await page.waitForSelector(".editor-card [data-layer-id]", { timeout: 30_000 });
  return page;
}

/** Share of one core the bridge process used over `ms`, in percent. */
async function cpuPercent(server, ms) {
  const before = await server.cpuMs();
  const t0 = performance.now();
  await sleep(ms);
  const used = (await server.cpuMs()) - before;
  return (100 * used) / (performance.now() - t0);
}

/** The page's main-thread busy ms per second over `ms`, and the long tasks seen meanwhile. */
async function pageBusy(page, ms) {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send("Performance.enable");
  const taskSeconds = async () => (await cdp.send("Performance.getMetrics")).metrics.find((m) => m.name === "TaskDuration").value;
  await page.evaluate(() => {
    globalThis.__longTasks = 0;
    new PerformanceObserver((list) => (globalThis.__longTasks += list.getEntries().length)).observe({ type: "longtask" });
  });
  const before = await taskSeconds();
  const t0 = performance.now();
  await sleep(ms);
  const busy = ((await taskSeconds()) - before) * 1000;
  const elapsed = performance.now() - t0;
  const longTasks = await page.evaluate(() => globalThis.__longTasks);
  await cdp.detach();
  return { busyPerSecond: (busy / elapsed) * 1000, longTasks };
}

/** Connects `n` named clients, each subscribed to `selection:changed`. */
async function connectClients(wsUrl, n) {
  let i = 0;
  return openMany(`${wsUrl}`, n, {
    setup: (ws) =>
      new Promise((resolve, reject) => {
        const id = `s${i++}`;
        const onMessage = (data) => {
          const frame = JSON.parse(String(data));
          if (frame.id !== id) return;
          ws.off("message", onMessage);
          if (frame.ok) resolve();
          else reject(new Error(frame.error.message));
        };
        ws.on("message", onMessage);
        ws.send(JSON.stringify({ id, method: "event:subscribe", params: { type: "selection:changed" } }));
      }),
  });
}

export async function run() {
  if (!existsSync(CHROMIUM)) {
    log(`  dashboard: skipped, ${CHROMIUM} is not installed`);
    return [{ benchmark: "dashboard", bridge: "skipped", baseline: "-", ratio: "-", target: "-", result: "-" }];
  }
  const { chromium } = await import("playwright-core");
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"],
  });
  const idle = { open: [], closed: [] };
  const busy = { loaded: [], empty: [], longLoaded: [], longEmpty: [] };
  try {
    for (let round = 0; round < ROUNDS; round++) {
      // Idle CPU: one bridge, measured without a page and with one, in alternating order.
      const server = await startBridgeProcess();
      try {
        await sleep(SETTLE_MS);
        for (const withPage of round % 2 === 0 ? [false, true] : [true, false]) {
          if (withPage) {
            const page = await openDashboard(browser, server.url);
            await sleep(SETTLE_MS);
            idle.open.push(await cpuPercent(server, IDLE_MS));
            await page.close();
          } else {
            idle.closed.push(await cpuPercent(server, IDLE_MS));
          }
          await sleep(SETTLE_MS);
        }
        // Page busy time: the open dashboard with no other client, then with CLIENTS more (or the other way).
        const page = await openDashboard(browser, server.url);
        await sleep(SETTLE_MS);
        for (const loaded of round % 2 === 0 ? [false, true] : [true, false]) {
          const sockets = loaded ? await connectClients(server.wsUrl.replace(/\/ws$/, "/ws?name=bench"), CLIENTS) : [];
          if (loaded) {
            await page
              // The page closed after the idle figure left a detached client behind: at least CLIENTS + this page.
              .waitForFunction((n) => Number(document.querySelector("#client-count")?.textContent) >= n, CLIENTS + 1, { timeout: 30_000 })
              .catch(async (error) => {
                throw new Error(`the page shows ${await page.textContent("#client-count")} clients, fewer than ${CLIENTS + 1}: ${error.message}`);
              });
          }
          const measured = await pageBusy(page, BUSY_MS);
          (loaded ? busy.loaded : busy.empty).push(measured.busyPerSecond);
          (loaded ? busy.longLoaded : busy.longEmpty).push(measured.longTasks);
          await closeAll(sockets);
        }
        await page.close();
      } finally {
        await server.close();
      }
    }
  } finally {
    await browser.close();
  }
  const open = median(idle.open);
  const closed = median(idle.closed);
  const added = open - closed;
  const loaded = median(busy.loaded);
  const empty = median(busy.empty);
  log(`  dashboard idle CPU: open ${idle.open.map((v) => v.toFixed(2)).join(", ")} % vs closed ${idle.closed.map((v) => v.toFixed(2)).join(", ")} % of a core`);
  log(`  dashboard page busy: ${CLIENTS} clients ${busy.loaded.map((v) => v.toFixed(1)).join(", ")} ms/s vs none ${busy.empty.map((v) => v.toFixed(1)).join(", ")} ms/s; long tasks ${busy.longLoaded.join(", ")} vs ${busy.longEmpty.join(", ")}`);
  return [
    {
      benchmark: `dashboard idle CPU (${added >= 0 ? "+" : ""}${added.toFixed(2)} points)`,
      bridge: `${open.toFixed(2)} %`,
      baseline: `${closed.toFixed(2)} %`,
      ratio: fmtRatio(open / closed),
      target: `+ < ${IDLE_CPU_TARGET_POINTS} points`,
      result: verdict(added, IDLE_CPU_TARGET_POINTS, false),
    },
    {
      benchmark: `dashboard page busy, ${CLIENTS} clients (long tasks ${median(busy.longLoaded)})`,
      bridge: `${fmtMs(loaded)}/s`,
      baseline: `${fmtMs(empty)}/s`,
      ratio: fmtRatio(loaded / empty),
      target: "(info)",
      result: "-",
    },
  ];
}

if (!process.argv.includes("--serve")) await printIfMain(import.meta, run);
