/**
 * The seven abuses of a hostile or careless client, each against the bridge as users run it (the CLI in a child
 * process, its editor in a process of its own), with limits scaled down so each runs in seconds. For every row:
 * the bridge answers with the named error, the memory of the bridge and its editors (sampled every 10 ms) grows
 * by less than the configured budget over its own baseline, and another client's `/health`, asked on a new
 * connection every 20 ms, answers 200 throughout.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { connect, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { writePsdBuffer, type Layer } from "ag-psd";
import sharp from "sharp";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { SCRIPT_MEMORY_LIMIT_BYTES } from "../../src/hosts/embedded/scripts/index.js";
import { DEFAULT_LIMITS } from "../../src/limits.js";
import { mib, startBridgeProcess, type BridgeProcess, type BridgeProcessOptions } from "../helpers/bridge-process.js";
import { refusedUpgrade, TestClient, waitForClient, type Frame } from "../helpers/ws-client.js";

const MiB = 1024 * 1024;

/**
 * Room above a row's budget for what any busy Node process grows by on its own (the JIT, V8's young generation,
 * sockets' buffers): a few tens of MiB. The abuses unbounded grow by hundreds of MiB to gigabytes.
 */
const RSS_SLACK_BYTES = 64 * MiB;
/**
 * Bytes of process memory one inbound byte in flight may cost while its frame is read and parsed (the frame, its
 * text, the parsed value), freed memory not being handed back to the system at once: with a 32 MiB cap and 12 MiB
 * frames, growth peaked at 155-205 MiB on 2 cores; with no cap, 400 MiB.
 */
const PARSE_AMPLIFICATION = 6;
/**
 * `/health` must answer; the bound is generous (tests never assert speed tightly): a blocked event loop stalls it
 * for 10 s and more, while a 2-core machine running the rest of the suite beside this file was seen at 2.5 s. The
 * pinger runs on a thread of its own: on the test's thread, row 4's sending of 24 frames of 12 MiB was charged to
 * the bridge (5.6 s against 0.7 s, the same row at load 5).
 */
const HEALTH_WORST_MS = 4_000;
/** Deadline of one row: each takes a few seconds on 2 cores. */
const ROW_TIMEOUT_MS = 45_000;

/** The editor memory budget and the inbound cap are other work in progress; their rows wait for them to land. */
const MEMORY_BUDGET_LIMIT = "editorMemoryBudgetBytes";
const INBOUND_LIMIT = "inboundBytesInFlight";
const MEMORY_BUDGET_LANDED = Object.hasOwn(DEFAULT_LIMITS, MEMORY_BUDGET_LIMIT);
const INBOUND_LANDED = Object.hasOwn(DEFAULT_LIMITS, INBOUND_LIMIT);
/** Why row 2 is skipped while it is: the budget it tests is not in the limits yet. */
const MEMORY_BUDGET_PENDING = `row 2 needs the editor memory budget (limit ${MEMORY_BUDGET_LIMIT}), not landed yet`;
/** Why row 4 is skipped while it is: the cap it tests is not in the limits yet. */
const INBOUND_PENDING = `row 4 needs the cap on inbound bytes in flight (limit ${INBOUND_LIMIT}), not landed yet`;

let bridge: BridgeProcess | undefined;
const clients: TestClient[] = [];
const sockets: Socket[] = [];
let dir = "";

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "abuse-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});
afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  for (const client of clients.splice(0)) client.ws.terminate();
  await bridge?.stop();
  bridge = undefined;
});

/** A bridge for one row, stopped after it. */
async function start(options: BridgeProcessOptions): Promise<BridgeProcess> {
  bridge = await launch(options);
  return bridge;
}

/** A bridge whose editor has answered, with its baseline taken: its process and the sample document are in it. */
async function launch(options: BridgeProcessOptions): Promise<BridgeProcess> {
  const served = await startBridgeProcess({ ...options, args: ["--files-root", dir, "--allow-editor-scripts", ...(options.args ?? [])] });
  const first = await open(served);
  await first.call("document:layers");
  served.reset();
  return served;
}

async function open(served: BridgeProcess, path = "/ws", options: Parameters<typeof TestClient.open>[1] = {}): Promise<TestClient> {
  const client = await TestClient.open(`ws://127.0.0.1:${served.port}${path}`, options);
  clients.push(client);
  return client;
}

/**
 * The row's three promises, once its abuse is over: memory under `budget` + slack, and `/health` answered throughout.
 * `where` names whose memory the budget bounds: the bridge with its editors (the default), or the bridge's own
 * process when what the row fills lives there and the editor's work beside it (encoding images) is not the subject.
 */
async function expectHeld(served: BridgeProcess, budget: number, where: "tree" | "bridge" = "tree"): Promise<void> {
  // Three pings more after the abuse, so /health was also asked once it was over; a row whose abuse is over within one
  // ping's interval (row 1 on a quiet machine) has exactly these three in its window.
  await served.morePings(3);
  const health = served.health();
  expect(health.pings).toBeGreaterThanOrEqual(3);
  expect(health.failures).toEqual([]);
  expect(health.worstMs).toBeLessThan(HEALTH_WORST_MS);
  const rss = served.rss();
  if (rss === undefined) return; // no /proc here
  expect(rss.samples).toBeGreaterThan(3);
  const { growth, baseline } = where === "tree" ? rss : rss.own;
  expect(growth, `${where} RSS grew ${mib(growth)} over ${mib(baseline)}; bound ${mib(budget + RSS_SLACK_BYTES)}`).toBeLessThan(budget + RSS_SLACK_BYTES);
}

async function file(name: string, bytes: Uint8Array): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, bytes);
  return path;
}

function u32(value: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(value);
  return b;
}

/**
 * A PSD built byte by byte: a `canvas`-sized RGB document with one layer record covering `layer` whose four channels
 * hold no data, and an empty raw merged image. 1×1 canvas, 22000×22000 layer: about 120 bytes.
 */
function hollowPsd(canvas: { width: number; height: number }, layer: { width: number; height: number; name: string }): Buffer {
  const name = Buffer.from(layer.name);
  const namePadded = Buffer.alloc(Math.ceil((name.length + 1) / 4) * 4);
  namePadded[0] = name.length;
  name.copy(namePadded, 1);
  const record = Buffer.alloc(16 + 2 + 4 * 6 + 12 + 4);
  let at = 0;
  at = record.writeInt32BE(0, at); // top
  at = record.writeInt32BE(0, at); // left
  at = record.writeInt32BE(layer.height, at); // bottom
  at = record.writeInt32BE(layer.width, at); // right
  at = record.writeUInt16BE(4, at);
  for (const id of [-1, 0, 1, 2]) {
    at = record.writeInt16BE(id, at);
    at = record.writeUInt32BE(0, at); // no channel data
  }
  at += record.write("8BIMnorm", at, "latin1");
  at = record.writeUInt8(255, at); // opacity
  at += 3; // clipping, flags, filler
  record.writeUInt32BE(8 + namePadded.length, at); // extra data: mask (0), blending ranges (0), name
  const layerInfo = Buffer.concat([Buffer.from([0, 1]), record, Buffer.alloc(8), namePadded]);
  const layerAndMask = Buffer.concat([u32(layerInfo.length), layerInfo, u32(0)]);
  const header = Buffer.alloc(26);
  header.write("8BPS", 0, "latin1");
  header.writeUInt16BE(1, 4);
  header.writeUInt16BE(3, 12);
  header.writeUInt32BE(canvas.height, 14);
  header.writeUInt32BE(canvas.width, 18);
  header.writeUInt16BE(8, 22);
  header.writeUInt16BE(3, 24);
  return Buffer.concat([header, u32(0), u32(0), u32(layerAndMask.length), layerAndMask, Buffer.from([0, 0])]);
}

/** A 1×1 PSD whose one layer sits inside `depth` nested groups. */
function nestedPsd(depth: number): Buffer {
  let node: Layer = { name: "leaf", imageData: { width: 1, height: 1, data: new Uint8ClampedArray([255, 0, 0, 255]) } };
  for (let i = depth; i >= 1; i--) node = { name: `g${i}`, opened: true, children: [node] };
  return writePsdBuffer({ width: 1, height: 1, children: [node] });
}

const isAnswer = (id: string) => (f: Frame) => f.id === id && f.type === undefined;

/**
 * One child bridge, started on first use, for the rows of a `describe` whose abuses leave nothing behind that the
 * others read: each row takes a new baseline (memory, `/health`) on it. Stopped after the `describe`.
 */
function sharedBridge(options: BridgeProcessOptions): () => Promise<BridgeProcess> {
  let shared: Promise<BridgeProcess> | undefined;
  afterAll(async () => {
    await (await shared)?.stop();
  });
  return async () => {
    shared ??= launch(options);
    const served = await shared;
    served.reset();
    return served;
  };
}

describe("abuse of a bridge in its own process (one case per row of the table)", () => {
  /**
   * Rows 1, 7 and 3 leave nothing behind that the others read (refused opens, a script stopped at its heap cap,
   * detached clients holding previews of the sample only they subscribed to): they share one bridge with both rows'
   * limits, each row measured from a baseline of its own, and the file starts two child bridges fewer.
   */
  describe("rows sharing one bridge", () => {
    /** Row 1's cap on a document's pixels; row 7's 1×1 document is far below it. */
    const MAX_DOCUMENT_PIXELS = 4_000_000;
    const startShared = sharedBridge({ limits: { maxDocumentPixels: MAX_DOCUMENT_PIXELS, replayTotalBytes: "2MiB" } });

    it("1: a 1×1 PSD declaring a 22000×22000 layer is refused PAYLOAD_TOO_LARGE naming the layer, every time, without its pixels", { timeout: ROW_TIMEOUT_MS }, async () => {
      const served = await startShared();
      const path = await file("hollow.psd", hollowPsd({ width: 1, height: 1 }, { width: 22_000, height: 22_000, name: "huge" }));
      const client = await open(served);
      for (let i = 0; i < 5; i++) {
        const answer = await client.send("document:open", { path });
        expect(answer.error).toMatchObject({
          code: "PAYLOAD_TOO_LARGE",
          details: { limit: "maxDocumentPixels", layer: "huge", layerIndex: 0, width: 22_000, height: 22_000, maxPixels: MAX_DOCUMENT_PIXELS },
        });
      }
      // The editor is still there, with the documents it had.
      expect(await client.call<unknown[]>("document:list")).toHaveLength(1);
      // One 22000×22000 RGBA layer is 1.8 GiB; the largest the limit admits is 4 MP, 16 MB.
      await expectHeld(served, MAX_DOCUMENT_PIXELS * 4);
    });

    it("7: a PSD nested past maxPsdGroupDepth is BAD_REQUEST; a script growing an array is JSX_FAILED kind memory", { timeout: ROW_TIMEOUT_MS }, async () => {
      const served = await startShared();
      const client = await open(served);
      // The editor's default depth limit is 100 (not a bridge limit, so not scaled down here); 150 is past it.
      const path = await file("deep.psd", nestedPsd(150));
      const nested = await client.send("document:open", { path });
      expect(nested.error).toMatchObject({ code: "BAD_REQUEST", details: { limit: "maxPsdGroupDepth", depth: 150, max: 100 } });
      const script = await client.send("jsx:run", { script: "const a = []; for (;;) a.push({ n: a.length });", timeoutMs: 30_000 });
      expect(script.error).toMatchObject({ code: "JSX_FAILED", details: { kind: "memory", memoryBytes: SCRIPT_MEMORY_LIMIT_BYTES } });
      expect(script.error!.message).toMatch(/ran out of its \d+ MiB memory limit/);
      // The editor is still there and runs the next script.
      expect((await client.send("jsx:run", { script: "[1, 2, 3].length" })).ok).toBe(true);
      // The script's heap is capped; nothing else grows.
      await expectHeld(served, SCRIPT_MEMORY_LIMIT_BYTES);
    });

    it("3: subscribed sockets dropped, then preview events: every detached client's replay together stays under replayTotalBytes", { timeout: ROW_TIMEOUT_MS }, async () => {
      const replayTotalBytes = 2 * MiB;
      const served = await startShared();
      const driver = await open(served);
      await driver.call("event:subscribe", { type: "layer:previewChange" });
      const CLIENTS = 40;
      const dropped: string[] = [];
      await Promise.all(
        Array.from({ length: CLIENTS }, async () => {
          const client = await open(served);
          await client.call("event:subscribe", { type: "layer:previewChange" });
          dropped.push(client.hello.clientId);
          client.ws.terminate();
        }),
      );
      for (const id of dropped) await waitForClient(driver, id, "detached");
      // Preview events, each a PNG of the newly active layer: alternate between two layers, one event at a time.
      const layers = await driver.call<Array<{ id: number }>>("document:layers");
      const ids = layers.slice(0, 2).map((l) => l.id);
      const EVENTS = 60;
      let eventBytes = 0;
      for (let i = 1; i <= EVENTS; i++) {
        await driver.call("layer:select", { ids: [ids[i % 2]!] });
        const event = await driver.nth((f) => f.type === "layer:previewChange", i);
        eventBytes = Math.max(eventBytes, Buffer.byteLength(JSON.stringify(event)));
      }
      // Unbounded, each detached client would keep every event.
      expect(CLIENTS * EVENTS * eventBytes).toBeGreaterThan(4 * replayTotalBytes);
      // Each resumes: what is replayed to all of them together fits the total, the rest is reported lost.
      let replayedBytes = 0;
      let lost = 0;
      await Promise.all(
        dropped.map(async (id) => {
          const back = await open(served, `/ws?resume=${id}`);
          const { replayed, lost: missed } = back.hello;
          expect(back.hello.resumed).toBe(true);
          if (replayed! > 0) await back.nth((f) => f.type === "layer:previewChange", replayed!);
          const events = back.events("layer:previewChange");
          expect(events.length + missed!).toBe(EVENTS);
          replayedBytes += events.reduce((n, f) => n + Buffer.byteLength(JSON.stringify(f)), 0);
          lost += missed!;
          back.ws.terminate();
        }),
      );
      expect(replayedBytes).toBeLessThanOrEqual(replayTotalBytes);
      expect(lost).toBeGreaterThan(0);
      // The replay buffers live in the bridge's process; the editor's PNG encoding of 60 previews is not this row's subject
      // (a CI run saw the pair grow 71 MiB with the replay held at 2 MiB).
      await expectHeld(served, replayTotalBytes, "bridge");
    });
  });

  /**
   * Rows 2, 4 and 6 likewise: the documents row 2 leaves open count against a budget the other two never reach, and
   * the big frames of row 4 and the flood of row 6 are gone once answered. One bridge with the three rows' limits.
   */
  describe("rows sharing a second bridge", () => {
    const ROW_6_LIMITS = { clientFramesPerSecond: 100, clientFrameBurst: 100, clientFrameAbuseRejections: 1_000, clientMistakeLogLines: 5 };
    const startShared = sharedBridge({
      logLevel: "info",
      limits: {
        ...(MEMORY_BUDGET_LANDED ? { [MEMORY_BUDGET_LIMIT]: "64MiB" } : {}),
        ...(INBOUND_LANDED ? { [INBOUND_LIMIT]: 32 * MiB, inboundBytesPerAddress: 32 * MiB } : {}),
        // Text frames this large are refused by default (maxTextFrameBytes); raised here, row 4 is about the inbound cap.
        // They are parsed on the bridge's thread here (jsonOffThreadBytes above them): the parse worker's isolate keeps
        // the heap it grew for 12 MiB texts after it is done (row 4's growth was seen at 170–300 MiB with it), which
        // is the worker's own retention, not bytes in flight; the off-thread path is bounded in big-frames.test.ts.
        maxPayloadBytes: "16MiB",
        maxTextFrameBytes: "16MiB",
        jsonOffThreadBytes: "16MiB",
        ...ROW_6_LIMITS,
        clientFrameAbuseWindowMs: "10s",
        clientMistakeLogIntervalMs: "60s",
      },
    });

    it.skipIf(!MEMORY_BUDGET_LANDED)(
      `2: documents and imports past the editor's memory budget are refused PAYLOAD_TOO_LARGE, and closing one gives its share back${MEMORY_BUDGET_LANDED ? "" : ` (skipped: ${MEMORY_BUDGET_PENDING})`}`,
      { timeout: ROW_TIMEOUT_MS },
      async () => {
        const budget = 64 * MiB;
        const served = await startShared();
        const client = await open(served);
        // 2000×2000 RGBA is 16 MB a layer: a few fit, then the budget is spent.
        const created: number[] = [];
        let refused: Frame | undefined;
        for (let i = 0; i < 20 && refused === undefined; i++) {
          const answer = await client.send("document:create", { width: 2000, height: 2000, name: `big-${i}` });
          if (answer.ok) created.push((answer.result as { id: number }).id);
          else refused = answer;
        }
        expect(created.length).toBeGreaterThan(0);
        expect(refused?.error).toMatchObject({ code: "PAYLOAD_TOO_LARGE", details: { limit: MEMORY_BUDGET_LIMIT, budgetBytes: budget } });
        const details = refused!.error!.details!;
        expect(details["bytes"]).toBeGreaterThan(0);
        expect((details["usedBytes"] as number) + (details["bytes"] as number)).toBeGreaterThan(budget);
        // A 91-byte PNG asked to be imported at 3000×3000 (36 MB) is charged from its size, before it is decoded.
        const png = await sharp({ create: { width: 1, height: 1, channels: 4, background: "#ff0000" } }).png().toBuffer();
        const imported = await client.send("layer:importImage", { image: `data:image/png;base64,${png.toString("base64")}`, size: { width: 3000, height: 3000 } });
        expect(imported.error).toMatchObject({ code: "PAYLOAD_TOO_LARGE", details: { limit: MEMORY_BUDGET_LIMIT } });
        // The operator sees the use against the budget.
        const memoryOf = async (): Promise<{ budgetBytes: number; usedBytes: number; documents: number }> => {
          const status = (await (await fetch(`${served.url}/status`)).json()) as { editors: Array<{ memory: { budgetBytes: number; usedBytes: number; documents: number } }> };
          return status.editors[0]!.memory;
        };
        const full = await memoryOf();
        expect(full).toMatchObject({ budgetBytes: budget, documents: created.length + 1 });
        expect(full.usedBytes).toBeLessThanOrEqual(budget);
        // Closing a document gives its share back: creating works again.
        expect(await client.call("document:close", { documentId: created.at(-1) })).toMatchObject({ closed: true });
        expect((await memoryOf()).usedBytes).toBeLessThan(full.usedBytes);
        expect((await client.send("document:create", { width: 2000, height: 2000, name: "again" })).ok).toBe(true);
        await expectHeld(served, budget);
      },
    );

    it.skipIf(!INBOUND_LANDED)(
      `4: several clients sending big frames at once are all answered, and the bytes in flight stay under the inbound cap${INBOUND_LANDED ? "" : ` (skipped: ${INBOUND_PENDING})`}`,
      { timeout: ROW_TIMEOUT_MS },
      async () => {
        const inbound = 32 * MiB;
        const FRAME_BYTES = 12 * MiB;
        const served = await startShared();
        // A zero masking key: the test's thread would otherwise mask 288 MiB in JavaScript, seconds of CPU the bridge
        // beside it on two cores would lose. The bridge unmasks what it reads as before.
        const senders = await Promise.all(Array.from({ length: 24 }, () => open(served, "/ws", { generateMask: (mask: Buffer) => mask.fill(0) })));
        const frame = JSON.stringify({ id: "big", method: "getServerInfo", params: { pad: "x".repeat(FRAME_BYTES) } });
        for (const sender of senders) sender.sendRaw(frame);
        // Every frame is read and answered (whatever the answer): past the cap they wait, they are not refused.
        const answers = await Promise.all(senders.map((sender) => sender.next(isAnswer("big"))));
        expect(answers).toHaveLength(senders.length);
        for (const sender of senders) expect((await sender.call<{ name: string }>("getServerInfo")).name).toBe("image-editor-bridge");
        // Unbounded, 24 frames of 12 MiB read at once grow it by ~400 MiB.
        await expectHeld(served, inbound * PARSE_AMPLIFICATION);
      },
    );

    it("6: a flood of unknown-method frames is refused TOO_MANY_REQUESTS with retryAfterMs, then closed 1008, writing a few log lines", { timeout: ROW_TIMEOUT_MS }, async () => {
      const limits = ROW_6_LIMITS;
      const served = await startShared();
      // What rows 2 and 4 logged on this bridge is not this row's.
      const from = served.lines.length;
      const flooder = await open(served);
      const bystander = await open(served);
      const FRAMES = 5_000;
      const flooded = performance.now();
      for (let i = 0; i < FRAMES; i++) flooder.sendRaw(JSON.stringify({ id: `f${i}`, method: "no:such-method" }));
      expect(await flooder.closed).toEqual({ code: 1008, reason: "too many frames" });
      const answers = flooder.frames.filter((f) => f.id !== undefined && f.type === undefined);
      const refused = answers.filter((f) => f.error?.details?.["limit"] === "clientFramesPerSecond");
      const dispatched = answers.filter((f) => !refused.includes(f));
      // Only the burst was dispatched (unknown methods, or past the in-flight limit; their answers may be cut by the
      // close), the rest refused for the rate.
      expect(dispatched.length).toBeLessThanOrEqual(limits.clientFrameBurst + limits.clientFramesPerSecond * ((performance.now() - flooded) / 1000));
      expect(dispatched.every((f) => f.error?.code === "UNKNOWN_METHOD" || f.error?.code === "TOO_MANY_REQUESTS")).toBe(true);
      expect(refused.length).toBeGreaterThanOrEqual(limits.clientFrameAbuseRejections - 1);
      for (const f of refused) {
        expect(f.error).toMatchObject({ code: "TOO_MANY_REQUESTS", retryable: true, details: { max: limits.clientFramesPerSecond } });
        expect(f.error!.details!["retryAfterMs"]).toBeGreaterThan(0);
      }
      // Another client is served meanwhile.
      expect((await bystander.call<{ name: string }>("getServerInfo")).name).toBe("image-editor-bridge");
      // Log lines about the flood are sampled: a few per kind, not one per frame.
      const logged = served.lines.slice(from).flatMap((line) => {
        try {
          return [JSON.parse(line) as Record<string, unknown>];
        } catch {
          return [];
        }
      });
      expect(logged.filter((l) => l["code"] === "UNKNOWN_METHOD").length).toBeLessThanOrEqual(limits.clientMistakeLogLines);
      expect(logged.filter((l) => l["code"] === "TOO_MANY_REQUESTS").length).toBeLessThanOrEqual(limits.clientMistakeLogLines);
      expect(logged.length).toBeLessThan(100);
      await expectHeld(served, 0);
    });
  });

  it("5: silent TCP connections are closed after idleConnectionMs, WS clients past the cap less its reserve are refused at once, /health answers", { timeout: ROW_TIMEOUT_MS }, async () => {
    // A reserve as large as the clients' share: past the cap the oldest silent socket is evicted, and a burst of
    // silent sockets larger than those held could evict a probe's socket before its request is read.
    const limits = { maxConnections: 100, connectionReserve: 50, idleConnectionMs: 2_000 };
    const served = await start({ limits: { maxConnections: 100, connectionReserve: 50, idleConnectionMs: "2s" } });
    // WS clients until one is refused: the cap less the reserve (the pinger's socket may hold one slot).
    const admitted: TestClient[] = [];
    let refusal: unknown;
    for (let i = 0; i < limits.maxConnections && refusal === undefined; i++) {
      try {
        admitted.push(await open(served));
      } catch (error) {
        refusal = error;
      }
    }
    expect(String(refusal)).toMatch(/HTTP 503/);
    expect(admitted.length).toBeGreaterThanOrEqual(limits.maxConnections - limits.connectionReserve - 2);
    expect(admitted.length).toBeLessThanOrEqual(limits.maxConnections - limits.connectionReserve);
    // The next one is answered at once, not left hanging until a deadline.
    const asked = performance.now();
    const refused = await refusedUpgrade(served.wsUrl);
    expect(performance.now() - asked).toBeLessThan(limits.idleConnectionMs / 2);
    expect(refused).toMatchObject({ status: 503, body: { code: "HOST_BUSY", details: { limit: "connectionReserve", max: limits.maxConnections } } });
    // 300 sockets that never send a byte, three times the cap, 10 at a time: every one is closed by the bridge.
    const silent: Socket[] = [];
    for (let i = 0; i < 30; i++) {
      silent.push(
        ...(await Promise.all(
          Array.from(
            { length: 10 },
            () =>
              new Promise<Socket>((resolve, reject) => {
                const socket = connect(served.port, "127.0.0.1", () => resolve(socket));
                socket.once("error", reject);
                sockets.push(socket);
              }),
          ),
        )),
      );
    }
    const flooded = performance.now();
    await Promise.all(silent.map((socket) => (socket.destroyed || socket.readableEnded ? undefined : new Promise((resolve) => socket.once("close", resolve)))));
    expect(performance.now() - flooded).toBeLessThan(limits.idleConnectionMs * 3);
    // The admitted clients were never touched.
    for (const client of admitted) expect(client.ws.readyState).toBe(client.ws.OPEN);
    expect((await admitted[0]!.call<{ name: string }>("getServerInfo")).name).toBe("image-editor-bridge");
    await expectHeld(served, 0);
  });

});
