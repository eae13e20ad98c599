import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { BUILTIN_METHODS } from "../../src/methods/index.js";
import { MAX_REQUEST_ID_LENGTH } from "../../src/protocol/index.js";
import type { BridgeOptions } from "../../src/bridge/options.js";
import { startBridge, type Harness } from "../helpers/bridge.js";
import { eventually, settledHeapBytes } from "../helpers/gc.js";
import { encodeFrame, OPCODES, RawWsClient } from "../helpers/raw-ws.js";
import { ScriptedHost } from "../helpers/scripted-host.js";
import type { TestClient } from "../helpers/ws-client.js";

/** Runs per property; bounded so the file finishes in about 20 s on a shared 2-core machine. */
const MESSAGE_RUNS = 150;
const MUTATION_RUNS = 300;
const NEAR_VALID_RUNS = 150;
/** Retained heap growth tolerated after everything the fuzzing opened is closed and collected. */
const HEAP_SLACK_BYTES = 24 * 1024 * 1024;

const METHOD_NAMES = BUILTIN_METHODS.map((m) => m.name);

let nextId = 0;
const freshId = (): string => `f${++nextId}`;

/** Deeply nested arrays or objects, as text (the JSON parser must not be the weak point). */
const deepNesting = fc
  .record({ depth: fc.integer({ min: 1, max: 20_000 }), objects: fc.boolean() })
  .map(({ depth, objects }) => (objects ? `${'{"a":'.repeat(depth)}1${"}".repeat(depth)}` : `${"[".repeat(depth)}${"]".repeat(depth)}`));

const loneSurrogates = fc.constantFrom("\ud800", "\udfff", "a\ud83d", "\ude00b", "\ufeff", "\u0000", "\u2028\u2029", "\uffff");

const params = fc.oneof(
  fc.constant(undefined),
  fc.jsonValue({ maxDepth: 4 }),
  fc.dictionary(fc.string({ unit: "binary", maxLength: 12 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 5 }),
  deepNesting.map((text) => ({ __raw: text })),
);

/** A request frame as text, with a fresh valid id; `__raw` params are spliced in unparsed. */
const requestText = fc
  .record({
    method: fc.oneof(fc.constantFrom(...METHOD_NAMES), fc.string({ unit: "binary", maxLength: 40 }), loneSurrogates),
    params,
  })
  .map(({ method, params: p }) => {
    const id = freshId();
    if (p !== null && typeof p === "object" && "__raw" in p) {
      return `{"id":${JSON.stringify(id)},"method":${JSON.stringify(method)},"params":${(p as { __raw: string }).__raw}}`;
    }
    return JSON.stringify(p === undefined ? { id, method } : { id, method, params: p });
  });

/**
 * Ids the bridge must not echo (too long, fractions, past 2^53, wrong type) or that are unusual but valid (integers,
 * surrogates, NUL, 256 chars).
 */
const oddIdText = fc
  .oneof(
    fc.integer({ min: MAX_REQUEST_ID_LENGTH + 1, max: 70_000 }).map((n) => "x".repeat(n)),
    fc.constant(""),
    fc.integer(),
    fc.constantFrom(0.5, -1.25, 2 ** 53, -(2 ** 53), 1e300),
    fc.constant(null),
    fc.array(fc.string(), { maxLength: 3 }),
    loneSurrogates.map((s) => `${s}${freshId()}`),
    fc.constant(null).map(() => `${freshId()}${"é".repeat(MAX_REQUEST_ID_LENGTH)}`.slice(0, MAX_REQUEST_ID_LENGTH)),
  )
  .chain((id) => fc.constantFrom(...METHOD_NAMES, 42, null).map((method) => JSON.stringify({ id, method })));

const frameText = fc.oneof(
  { arbitrary: requestText, weight: 5 },
  { arbitrary: oddIdText, weight: 2 },
  { arbitrary: fc.json({ maxDepth: 3 }), weight: 2 },
  { arbitrary: fc.string({ unit: "binary", maxLength: 60 }), weight: 2 },
  { arbitrary: fc.json({ maxDepth: 2 }).map((s) => `\ufeff${s}`), weight: 1 },
  { arbitrary: deepNesting, weight: 1 },
);

const frames = fc.array(fc.record({ text: frameText, binary: fc.boolean() }), { minLength: 1, maxLength: 25 });

/** A response's id as a map key that keeps `1` and `"1"` apart. */
const idKey = (id: string | number): string => JSON.stringify(id);

/** What the bridge must do with one frame, judged from the text it will actually decode. */
function expectation(text: string): { id: string } | "error-event" {
  const decoded = Buffer.from(text, "utf8").toString("utf8"); // lone surrogates become U+FFFD on the wire
  let value: unknown;
  try {
    value = JSON.parse(decoded);
  } catch {
    return "error-event";
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) return "error-event";
  const id = (value as { id?: unknown }).id;
  if (typeof id === "string" && id.length >= 1 && id.length <= MAX_REQUEST_ID_LENGTH) return { id: idKey(id) };
  return Number.isSafeInteger(id) ? { id: idKey(id as number) } : "error-event";
}

/** The editors fuzzed: the scripted one (every fault path of the bridge) and the embedded one (real methods). */
const EDITORS = [
  { name: "the scripted editor", options: (): BridgeOptions => ({ host: new ScriptedHost() }) },
  {
    name: "the embedded editor",
    // Small documents and no file access: random params must not allocate gigabytes or touch the disk.
    // GrabCut loads opencv.js (~11 MB, kept for the process lifetime): it would read as heap growth, so it stays off.
    options: (): BridgeOptions => ({ embedded: { maxDocumentPixels: 250_000, cutout: { refine: "never" } }, imports: { allowFile: false }, limits: { maxDocumentPixels: 250_000 } }),
  },
];

async function fuzzBridge(editor: BridgeOptions = { host: new ScriptedHost() }): Promise<{ harness: Harness; fuzzer: TestClient; bystander: TestClient }> {
  const harness = await startBridge({
    ...editor,
    // The fuzzer's socket must survive its garbage to keep being fuzzed; closing at 1007 is tested elsewhere.
    limits: { maxMalformedFrames: 1_000_000, maxPayloadBytes: 1024 * 1024, resumeTtlMs: 50 },
  });
  const fuzzer = await harness.connect();
  const bystander = await harness.connect();
  return { harness, fuzzer, bystander };
}

async function healthClients(harness: Harness): Promise<number> {
  const health = (await (await harness.http("/status")).json()) as { clients: unknown[] };
  return health.clients.length;
}

describe.each(EDITORS)("WebSocket message fuzzing on $name", ({ options }) => {
  it("every request-shaped frame gets exactly one response, anything else one error event, and a bystander keeps answering", async () => {
    const { harness, fuzzer, bystander } = await fuzzBridge(options());
    const counts = new Map<string, number>();
    let errorEvents = 0;
    const internal: string[] = [];
    fuzzer.ws.on("message", (data) => {
      const frame = JSON.parse(String(data)) as { id?: string | number; type?: string; error?: { code: string; method?: string } };
      if (frame.error?.code === "INTERNAL") internal.push(frame.error.method ?? "?");
      if (typeof frame.id === "string" || typeof frame.id === "number") counts.set(idKey(frame.id), (counts.get(idKey(frame.id)) ?? 0) + 1);
      else if (frame.type === "error") errorEvents++;
    });
    const heapBefore = settledHeapBytes();

    await fc.assert(
      fc.asyncProperty(frames, async (batch) => {
        const expected = new Map<string, number>();
        let expectedErrors = errorEvents;
        for (const { text, binary } of batch) {
          const want = expectation(text);
          if (want === "error-event") expectedErrors++;
          else expected.set(want.id, (expected.get(want.id) ?? counts.get(want.id) ?? 0) + 1);
          fuzzer.sendRaw(binary ? Buffer.from(text, "utf8") : text);
        }
        // A host-bound and a direct call after the batch: once both answer, the batch has been fully dispatched.
        await fuzzer.send("document:current"); // may fail (the fuzz may have closed it): only its arrival matters
        await fuzzer.call("getServerInfo");
        await eventually(() => errorEvents >= expectedErrors && [...expected].every(([id, n]) => (counts.get(id) ?? 0) >= n), "answers");
        for (const [id, n] of expected) expect(counts.get(id), `responses to ${JSON.stringify(id).slice(0, 80)}`).toBe(n);
        expect(errorEvents).toBe(expectedErrors);
        expect((await bystander.call<{ name: string }>("getServerInfo")).name).toBe("image-editor-bridge");
      }),
      { numRuns: MESSAGE_RUNS },
    );

    expect(fuzzer.ws.readyState).toBe(fuzzer.ws.OPEN);
    // Bad input is the client's fault: it must never surface as the bridge's own INTERNAL error.
    expect(internal).toEqual([]);
    await fuzzer.close(4000);
    await bystander.close(4000);
    await eventually(async () => (await healthClients(harness)) === 0, "clients disposed");
    const grown = settledHeapBytes() - heapBefore;
    expect(grown).toBeLessThan(HEAP_SLACK_BYTES);
  });
});

/** A value for a field of otherwise well-formed params: plausible, out of range, or of the wrong type. */
const fieldValue = fc.oneof(
  fc.integer({ min: -2, max: 600 }),
  fc.constantFrom(0, -1, 1e308, -1e308, 2 ** 31, 2 ** 53 + 2, 0.5, 1e-9, 65_536),
  fc.string({ unit: "binary", maxLength: 12 }),
  fc.constantFrom("png", "jpeg", "webp", "gif", "", "data:image/png;base64,", "data:image/png;base64,iVBORw0KGgo=", "AAAA", "http://"),
  fc.constant(null),
  fc.boolean(),
  fc.array(fc.integer({ min: -1, max: 40 }), { maxLength: 4 }),
  fc.dictionary(fc.constantFrom("x", "y", "width", "height"), fc.integer({ min: -5, max: 700 })),
);

/** Params templates of real methods whose fields get {@link fieldValue}s. */
const NEAR_VALID: Array<{ method: string; fields: string[] }> = [
  { method: "layer:getInfoById", fields: ["layerId", "getChildren"] },
  { method: "layer:getInfoByIndex", fields: ["layerIndex"] },
  { method: "layer:getInfoBySelectionIndex", fields: ["selectionIndex"] },
  { method: "layer:getInfo", fields: ["layerId", "layerIndex", "getChildren"] },
  { method: "selection:set", fields: ["rect", "documentId"] },
  { method: "selection:getPath", fields: ["expand"] },
  { method: "image:exportDocument", fields: ["format", "quality", "maxSize", "scale"] },
  { method: "image:exportLayer", fields: ["layerId", "format", "maxSize"] },
  { method: "layer:getCurrentPreview", fields: ["maxSize"] },
  { method: "document:create", fields: ["width", "height", "name"] },
  { method: "document:layers", fields: ["documentId"] },
  { method: "layer:select", fields: ["ids"] },
  { method: "layer:importImage", fields: ["image", "name", "position", "size", "layerIndex"] },
  { method: "jsx:execute", fields: ["name", "params", "timeoutMs"] },
];

const nearValidRequest = fc.constantFrom(...NEAR_VALID).chain(({ method, fields }) =>
  fc.subarray(fields).chain((chosen) =>
    fc.tuple(...chosen.map(() => fieldValue)).map((values) => ({ method, params: Object.fromEntries(chosen.map((f, i) => [f, values[i]])) })),
  ),
);

describe("near-valid params on the embedded editor", () => {
  it("wrong, missing and out-of-range fields answer once with a client error, never INTERNAL", async () => {
    const { fuzzer, bystander } = await fuzzBridge(EDITORS[1]!.options());
    const internal: string[] = [];
    const outcomes = new Set<string>();
    await fc.assert(
      fc.asyncProperty(fc.array(nearValidRequest, { minLength: 1, maxLength: 8 }), async (requests) => {
        const frames = await Promise.all(requests.map((r) => fuzzer.send(r.method, r.params)));
        for (const [i, frame] of frames.entries()) {
          outcomes.add(frame.ok ? "ok" : frame.error!.code);
          if (frame.error?.code === "INTERNAL") internal.push(`${requests[i]!.method} ${JSON.stringify(requests[i]!.params)}`);
        }
        expect((await bystander.call<{ name: string }>("getServerInfo")).name).toBe("image-editor-bridge");
      }),
      { numRuns: NEAR_VALID_RUNS },
    );
    expect(internal).toEqual([]);
    // The fuzz reached the editor: some calls succeeded and several kinds of refusal came back.
    expect(outcomes.has("ok")).toBe(true);
    expect(outcomes.size).toBeGreaterThan(3);
  });
});

/** Protocol violations a hand-written client can commit; each must close only its own socket. */
const VIOLATIONS: Array<{ name: string; bytes: () => Buffer; closeCode: number }> = [
  { name: "unmasked client frame", bytes: () => encodeFrame(OPCODES.text, '{"id":"u","method":"getServerInfo"}', { mask: false }), closeCode: 1002 },
  { name: "reserved opcode 0x3", bytes: () => encodeFrame(0x3, "x"), closeCode: 1002 },
  { name: "reserved control opcode 0xB", bytes: () => encodeFrame(0xb, ""), closeCode: 1002 },
  { name: "RSV1 without an extension", bytes: () => encodeFrame(OPCODES.text, "{}", { rsv: 4 }), closeCode: 1002 },
  { name: "continuation with nothing to continue", bytes: () => encodeFrame(OPCODES.continuation, "x"), closeCode: 1002 },
  { name: "fragmented control frame", bytes: () => encodeFrame(OPCODES.ping, "x", { fin: false }), closeCode: 1002 },
  { name: "control frame over 125 bytes", bytes: () => encodeFrame(OPCODES.ping, "x".repeat(126)), closeCode: 1002 },
  { name: "invalid UTF-8 in a text frame", bytes: () => encodeFrame(OPCODES.text, Buffer.from([0x7b, 0xff, 0xfe, 0x7d])), closeCode: 1007 },
  {
    name: "a new message before the previous one finished",
    bytes: () => Buffer.concat([encodeFrame(OPCODES.text, '{"id":', { fin: false }), encodeFrame(OPCODES.text, "x")]),
    closeCode: 1002,
  },
  { name: "declared length over maxPayload", bytes: () => encodeFrame(OPCODES.text, "", { declaredLength: 2 * 1024 * 1024 }), closeCode: 1009 },
  {
    name: "fragments adding up past maxPayload",
    bytes: () =>
      Buffer.concat([
        encodeFrame(OPCODES.text, "[".repeat(600_000), { fin: false }),
        encodeFrame(OPCODES.continuation, "]".repeat(600_000)),
      ]),
    closeCode: 1009,
  },
];

describe("WebSocket frame-level fuzzing over a raw socket", () => {
  for (const violation of VIOLATIONS) {
    it(`${violation.name} closes that socket with ${violation.closeCode} and nothing else`, async () => {
      const { harness, bystander } = await fuzzBridge();
      const raw = await RawWsClient.open(harness.bridge.port);
      await raw.until(() => raw.json().some((f) => f["type"] === "connected"));
      raw.write(violation.bytes());
      await raw.closed;
      expect(raw.closeCode).toBe(violation.closeCode);
      expect((await bystander.call<{ name: string }>("getServerInfo")).name).toBe("image-editor-bridge");
    });
  }

  it("a message split into continuation frames and interleaved pings is answered once", async () => {
    const { harness } = await fuzzBridge();
    const raw = await RawWsClient.open(harness.bridge.port);
    const text = '{"id":"frag","method":"getServerInfo","params":{}}';
    const parts = [text.slice(0, 5), text.slice(5, 20), text.slice(20)];
    raw.write(
      Buffer.concat([
        encodeFrame(OPCODES.text, parts[0]!, { fin: false }),
        encodeFrame(OPCODES.ping, "p"),
        encodeFrame(OPCODES.continuation, parts[1]!, { fin: false }),
        encodeFrame(OPCODES.continuation, parts[2]!),
        encodeFrame(OPCODES.binary, '{"id":"bin","method":"getServerInfo"}'),
      ]),
    );
    await raw.until(() => raw.json().filter((f) => f["id"] === "frag" || f["id"] === "bin").length === 2);
    expect(raw.json().filter((f) => f["id"] === "frag")).toEqual([expect.objectContaining({ ok: true })]);
    raw.destroy();
  });

  it("randomly mutated frames never crash the bridge, and the bystander and /health keep answering", async () => {
    const { harness, bystander } = await fuzzBridge();
    const valid = encodeFrame(OPCODES.text, '{"id":"m","method":"document:current","params":{}}', { mask: false });
    const mutation = fc.record({
      flips: fc.array(fc.record({ at: fc.nat({ max: valid.length - 1 }), value: fc.integer({ min: 0, max: 255 }) }), { maxLength: 6 }),
      cut: fc.nat({ max: valid.length }),
      tail: fc.uint8Array({ maxLength: 64 }),
      masked: fc.boolean(),
    });
    let closedCount = 0;
    await fc.assert(
      fc.asyncProperty(mutation, async ({ flips, cut, tail, masked }) => {
        const raw = await RawWsClient.open(harness.bridge.port);
        const bytes = Buffer.from(valid);
        for (const { at, value } of flips) bytes[at] = value;
        // Re-mask when asked so mutations also reach the payload parser, not only the header checks.
        const body = masked ? bytes.subarray(0, cut) : Buffer.concat([bytes.subarray(0, cut), tail]);
        raw.write(masked && body.length >= 2 ? encodeFrame(body[0]! & 0x0f, body.subarray(2), { fin: (body[0]! & 0x80) !== 0 }) : body);
        // Then a valid frame and the end of our side: a frame that declared more bytes than it sent cannot keep
        // the socket waiting, and the bridge either answers what it parsed or closes for what it could not.
        raw.write(encodeFrame(OPCODES.text, '{"id":"probe","method":"getServerInfo"}'));
        raw.socket.end();
        await raw.closed;
        if (raw.closeCode !== undefined) closedCount++;
        expect((await bystander.call<{ name: string }>("getServerInfo")).name).toBe("image-editor-bridge");
        expect((await harness.http("/health")).status).toBe(200);
      }),
      { numRuns: MUTATION_RUNS },
    );
    // The mutations are not all harmless: some sockets must have been closed for their bytes.
    expect(closedCount).toBeGreaterThan(0);
    await eventually(async () => (await healthClients(harness)) === 2, "fuzzed clients expired");
  });
});
