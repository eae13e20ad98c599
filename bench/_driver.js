// The load driver of the process benches, a process of its own pinned to its own core (see `_procs.js`). It takes
// one command at a time over IPC and answers when done:
//
//   { cmd: "ws", url, sockets, inflight, method, params, warmupMs, durationMs }  → { rate, p50, p99, failed, cpuMs }
//   { cmd: "http", port, path, conns, warmupMs, durationMs }                      → { rate, p50, p99, failed, cpuMs }
//   { cmd: "open", url, n, subscribe, batch }  → { handle, ms }: n sockets opened (each subscribed when asked), held
//   { cmd: "active", handle, count, method, everyMs, durationMs }                → { calls, p50, p99, max, failed }
//   { cmd: "fanout", handle, slow, fill, url, inflight, rects, warmupMs, durationMs }  → { events, deliveries, … }
//   { cmd: "close", handle }                                                      → {}
//
// Answers are matched without a JSON parse: both servers answer `{"id":<n>,"ok":…` first, so the id and the
// outcome are read from the text, which keeps the driver's own cost per call low.
import net from "node:net";
import { WebSocket } from "ws";

const now = () => performance.now();
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

function percentile(values, p) {
  if (values.length === 0) return NaN;
  const sorted = Float64Array.from(values).sort();
  const rank = (p / 100) * (sorted.length - 1);
  const lo = Math.floor(rank);
  return sorted[lo] + (sorted[Math.ceil(rank)] - sorted[lo]) * (rank - lo);
}

/** `{ id, ok }` of an answer frame, or undefined for anything else (events, the greeting). */
function answerOf(text) {
  if (!text.startsWith('{"id":')) return undefined;
  const comma = text.indexOf(",", 6);
  return { id: Number(text.slice(6, comma)), ok: text.startsWith('"ok":true', comma + 1) };
}

function openSocket(url) {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { perMessageDeflate: false });
    ws.once("open", () => {
      ws.off("error", reject);
      ws.on("error", () => {});
      resolve(ws);
    });
    ws.once("error", reject);
  });
}

/**
 * Runs `start(window)` (which returns its `stop`) for a warm-up, then `durationMs` counted (`window.counting`), then
 * stops it and waits for what is outstanding. Marks the counted window to the parent.
 */
async function timed(warmupMs, durationMs, start) {
  const window = { counting: false, stopped: false };
  const stop = start(window);
  await sleep(warmupMs);
  // The parent reads the server's CPU at these marks, so CPU per call counts the same window as the calls.
  process.send({ mark: "start" });
  const c0 = cpuMs();
  window.counting = true;
  const t0 = now();
  await sleep(durationMs);
  window.counting = false;
  const elapsed = now() - t0;
  const c1 = cpuMs();
  process.send({ mark: "end" });
  window.stopped = true;
  await stop();
  return { elapsed, cpuMs: c1 - c0 };
}

async function wsLoad({ url, sockets, inflight, method, params, warmupMs, durationMs }) {
  const conns = await Promise.all(Array.from({ length: sockets }, () => openSocket(url)));
  const latencies = [];
  let completed = 0;
  let failed = 0;
  let outstanding = 0;
  let next = 0;
  const tail = `,"method":${JSON.stringify(method)}${params === undefined ? "" : `,"params":${JSON.stringify(params)}`}}`;
  const { elapsed, cpuMs: driverCpu } = await timed(warmupMs, durationMs, (window) => {
    for (const ws of conns) {
      const sent = new Map();
      const send = () => {
        const id = ++next;
        sent.set(id, now());
        outstanding++;
        ws.send(`{"id":${id}${tail}`);
      };
      ws.on("message", (data) => {
        const answer = answerOf(String(data));
        if (answer === undefined) return;
        const t = sent.get(answer.id);
        if (t === undefined) return;
        sent.delete(answer.id);
        outstanding--;
        if (window.counting) {
          if (answer.ok) {
            completed++;
            latencies.push(now() - t);
          } else failed++;
        }
        if (!window.stopped) send();
      });
      for (let i = 0; i < inflight; i++) send();
    }
    return async () => {
      const deadline = now() + 10_000;
      while (outstanding > 0 && now() < deadline) await sleep(5);
    };
  });
  for (const ws of conns) ws.close(4000);
  return { rate: (completed / elapsed) * 1000, p50: percentile(latencies, 50), p99: percentile(latencies, 99), failed, cpuMs: driverCpu, elapsed };
}

/**
 * HTTP/1.1 keep-alive over raw sockets: one request in flight per connection, the answer read by its
 * `content-length`. Far cheaper per request than `http.request`, so the driver's core is not what limits.
 */
async function httpLoad({ port, path, conns, warmupMs, durationMs }) {
  const request = Buffer.from(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAccept: application/json\r\n\r\n`);
  const latencies = [];
  let completed = 0;
  let failed = 0;
  let outstanding = 0;
  const sockets = await Promise.all(
    Array.from(
      { length: conns },
      () =>
        new Promise((resolve, reject) => {
          const socket = net.connect(port, "127.0.0.1", () => resolve(socket));
          socket.setNoDelay(true);
          socket.once("error", reject);
        }),
    ),
  );
  const { elapsed, cpuMs: driverCpu } = await timed(warmupMs, durationMs, (window) => {
    for (const socket of sockets) {
      let pending = Buffer.alloc(0);
      let sentAt = 0;
      const send = () => {
        sentAt = now();
        outstanding++;
        socket.write(request);
      };
      socket.on("data", (chunk) => {
        pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
        for (;;) {
          const end = pending.indexOf("\r\n\r\n");
          if (end < 0) return;
          const head = pending.toString("latin1", 0, end);
          const m = /content-length:\s*(\d+)/i.exec(head);
          const total = end + 4 + (m === null ? 0 : Number(m[1]));
          if (pending.length < total) return;
          const ok = head.startsWith("HTTP/1.1 200");
          pending = pending.subarray(total);
          outstanding--;
          if (window.counting) {
            if (ok) {
              completed++;
              latencies.push(now() - sentAt);
            } else failed++;
          }
          if (!window.stopped) send();
        }
      });
      send();
    }
    return async () => {
      const deadline = now() + 10_000;
      while (outstanding > 0 && now() < deadline) await sleep(5);
    };
  });
  for (const socket of sockets) socket.destroy();
  return { rate: (completed / elapsed) * 1000, p50: percentile(latencies, 50), p99: percentile(latencies, 99), failed, cpuMs: driverCpu, elapsed };
}

const handles = new Map();
let lastHandle = 0;

/** Opens `n` sockets, `batch` at a time, each subscribed to `subscribe` (an event type) when given. */
async function openMany({ url, n, subscribe, batch = 100 }) {
  const sockets = [];
  const t0 = now();
  let id = 0;
  for (let start = 0; start < n; start += batch) {
    const opened = await Promise.all(
      Array.from({ length: Math.min(batch, n - start) }, async () => {
        const ws = await openSocket(url);
        if (subscribe !== undefined) {
          const mine = ++id;
          await new Promise((resolve, reject) => {
            const onMessage = (data) => {
              const answer = answerOf(String(data));
              if (answer?.id !== mine) return;
              ws.off("message", onMessage);
              if (answer.ok) resolve();
              else reject(new Error(`subscribe failed: ${data}`));
            };
            ws.on("message", onMessage);
            ws.send(JSON.stringify({ id: mine, method: "event:subscribe", params: { type: subscribe } }));
          });
        }
        return ws;
      }),
    );
    sockets.push(...opened);
  }
  const ms = now() - t0;
  const handle = ++lastHandle;
  handles.set(handle, sockets);
  return { handle, ms };
}

/** `count` of a handle's sockets each call `method` every `everyMs` (± jitter) for `durationMs`: latencies. */
async function active({ handle, count, method, everyMs, durationMs }) {
  const sockets = handles.get(handle).slice(0, count);
  const latencies = [];
  let failed = 0;
  let next = 1_000_000;
  const stopAt = now() + durationMs;
  await Promise.all(
    sockets.map(async (ws) => {
      await sleep(Math.random() * everyMs);
      while (now() < stopAt) {
        const id = ++next;
        const t0 = now();
        const ok = await new Promise((resolve) => {
          const onMessage = (data) => {
            const answer = answerOf(String(data));
            if (answer?.id !== id) return;
            ws.off("message", onMessage);
            resolve(answer.ok);
          };
          ws.on("message", onMessage);
          ws.send(`{"id":${id},"method":${JSON.stringify(method)}}`);
        });
        if (ok) latencies.push(now() - t0);
        else failed++;
        await sleep(everyMs * (0.5 + Math.random()));
      }
    }),
  );
  return { calls: latencies.length, p50: percentile(latencies, 50), p99: percentile(latencies, 99), max: Math.max(...latencies), failed };
}

/**
 * Saturating fan-out: the handle's sockets are subscribers; the first `slow` of them stop reading (their socket is
 * paused, so the server's writes to them back up), each after asking for `fill` large answers. A trigger socket keeps `inflight` `selection:set` calls
 * outstanding, alternating two rects so every call changes the selection. Counts deliveries to the readers.
 */
async function fanout({ handle, slow, fill = 0, url, inflight, rects, warmupMs, durationMs }) {
  const subscribers = handles.get(handle);
  let deliveries = 0;
  let counting = false;
  const readers = subscribers.slice(slow);
  for (const ws of subscribers.slice(0, slow)) {
    if (ws._socket.isPaused()) continue;
    // Stops reading, then asks for a few large answers it will not read either: past the kernel's socket buffers
    // they wait in the server, so its later state events find the socket backed up (what coalescing is for).
    ws._socket.pause();
    for (let i = 0; i < fill; i++) ws.send(`{"id":${-1 - i},"method":"server:clients"}`);
  }
  const onEvent = (data) => {
    if (counting && data.length > 10 && data[2] === 0x74 /* {"t… */) deliveries++;
  };
  for (const ws of readers) ws.on("message", onEvent);
  const trigger = await openSocket(url);
  // A change waits in the editor's queue for the reads before it (the large answers asked for above): once it is
  // answered they are done, and the counted window sees events only.
  await new Promise((resolve) => {
    trigger.on("message", function first(data) {
      if (answerOf(String(data))?.id !== 0) return;
      trigger.off("message", first);
      resolve();
    });
    trigger.send(`{"id":0,"method":"selection:set","params":{"rect":${JSON.stringify(rects[0])}}}`);
  });
  let events = 0;
  let outstanding = 0;
  let next = 0;
  const { elapsed, cpuMs: driverCpu } = await timed(warmupMs, durationMs, (window) => {
    const send = () => {
      outstanding++;
      const rect = rects[++next % rects.length];
      trigger.send(`{"id":${next},"method":"selection:set","params":{"rect":${JSON.stringify(rect)}}}`);
    };
    trigger.on("message", (data) => {
      const answer = answerOf(String(data));
      if (answer === undefined) return;
      outstanding--;
      counting = window.counting;
      if (window.counting && answer.ok) events++;
      if (!window.stopped) send();
    });
    counting = window.counting;
    for (let i = 0; i < inflight; i++) send();
    return async () => {
      const deadline = now() + 10_000;
      while (outstanding > 0 && now() < deadline) await sleep(5);
      counting = false;
    };
  });
  trigger.close(4000);
  for (const ws of readers) ws.off("message", onEvent);
  return { events, deliveries, elapsed, cpuMs: driverCpu, readers: readers.length };
}

async function closeHandle({ handle }) {
  const sockets = handles.get(handle) ?? [];
  handles.delete(handle);
  await Promise.all(
    sockets.map(
      (ws) =>
        new Promise((resolve) => {
          if (ws.readyState === WebSocket.CLOSED) return resolve();
          ws._socket?.resume();
          const timer = setTimeout(() => {
            ws.terminate();
            resolve();
          }, 5_000);
          ws.once("close", () => {
            clearTimeout(timer);
            resolve();
          });
          ws.close(4000);
        }),
    ),
  );
  return {};
}

const COMMANDS = { ws: wsLoad, http: httpLoad, open: openMany, active, fanout, close: closeHandle };

process.on("message", async (message) => {
  try {
    process.send(await COMMANDS[message.cmd](message));
  } catch (error) {
    process.send({ error: String(error?.stack ?? error) });
  }
});
process.on("SIGTERM", () => process.exit(0));
