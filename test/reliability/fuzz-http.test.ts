import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { BridgeOptions } from "../../src/bridge/options.js";
import { BUILTIN_METHODS } from "../../src/methods/index.js";
import { startOnSharedEditor } from "../helpers/shared-editor.js";
import { settledHeapBytes } from "../helpers/gc.js";
import { rawHttp, requestHead } from "../helpers/raw-http.js";
import { ScriptedHost } from "../helpers/scripted-host.js";

/** Requests per property; bounded so the file stays well under 20 s. */
const RUNS = 300;
/** Retained heap growth tolerated after the fuzzing (answers are not kept anywhere). */
const HEAP_SLACK_BYTES = 24 * 1024 * 1024;

const ROUTES = BUILTIN_METHODS.flatMap((m) => (m.http ? [m.http] : [])).map((h) => ({ verb: h.verb, path: h.path }));
const FIXED_PATHS = ["/health", "/plugins", "/schema", "/metrics", "/plugins/x/health", "/plugins/x/y", "/ws", "/", "//", "/%"];

const loneSurrogates = fc.constantFrom("\ud800", "\udfff", "\ufeff", "\u0000", "%00", "%ff", "%", "%zz", "%c0%af", "..", "%2e%2e%2f");

/** A path segment: printable, percent-encoded anything, traversal attempts or broken escapes. */
const segment = fc.oneof(
  fc.string({ unit: "binary", maxLength: 20 }).map(encodeURIComponent),
  fc.stringMatching(/^[A-Za-z0-9._~!$&'()*+,;=:@-]{0,30}$/),
  loneSurrogates.map((s) => (s.startsWith("%") || s === ".." ? s : encodeURIComponent(s.replace(/[\ud800-\udfff]/g, "x")))),
  fc.integer({ min: 1, max: 9000 }).map((n) => "a".repeat(n)),
  fc.constantFrom("-1", "1e309", "0x10", "NaN", "9007199254740993", "1.5", ""),
);

const query = fc
  .array(fc.tuple(fc.oneof(fc.constantFrom("getChildren", "documentId", "expand", "maxSize", "__proto__", "constructor"), segment), segment), {
    maxLength: 6,
  })
  .map((pairs) => (pairs.length === 0 ? "" : `?${pairs.map(([k, v]) => `${k}=${v}`).join("&")}`));

const target = fc
  .oneof(
    fc.constantFrom(...ROUTES).chain((r) =>
      fc.tuple(fc.constant(r), segment).map(([route, seg]) => ({ verb: route.verb, path: route.path.replace(/:[A-Za-z]+/g, seg) })),
    ),
    fc.constantFrom(...FIXED_PATHS).map((path) => ({ verb: "GET", path })),
    fc.array(segment, { maxLength: 5 }).map((segs) => ({ verb: "GET", path: `/${segs.join("/")}` })),
  )
  .chain(({ verb, path }) =>
    fc.record({
      verb: fc.oneof({ arbitrary: fc.constant(verb), weight: 4 }, { arbitrary: fc.constantFrom("GET", "POST", "PUT", "DELETE", "OPTIONS", "PATCH"), weight: 1 }),
      path: fc.constant(path),
      query,
    }),
  );

const body = fc.oneof(
  fc.constant(undefined),
  fc.json({ maxDepth: 3 }).map((s) => Buffer.from(s)),
  fc.string({ unit: "binary", maxLength: 80 }).map((s) => Buffer.from(s)),
  fc.json({ maxDepth: 2 }).map((s) => Buffer.from(`\ufeff${s}`)),
  fc.integer({ min: 1, max: 20_000 }).map((n) => Buffer.from(`${'{"a":'.repeat(n)}1${"}".repeat(n)}`)),
  fc.uint8Array({ maxLength: 200 }).map((a) => Buffer.from(a)),
);

const contentType = fc.constantFrom(undefined, "application/json", "text/plain", "application/json; charset=utf-16", "multipart/form-data; boundary=x");

/** The scripted editor reaches every bridge path; the embedded one runs the real methods (small, no disk reads). */
const EDITORS: Array<{ name: string; options: () => BridgeOptions }> = [
  { name: "the scripted editor", options: () => ({ host: new ScriptedHost() }) },
  // GrabCut loads opencv.js (~11 MB, kept for the process lifetime): it would read as heap growth, so it stays off.
  { name: "the embedded editor", options: () => ({ embedded: { maxDocumentPixels: 250_000, allowFileImport: false, cutout: { refine: "never" } } }) },
];

describe.each(EDITORS)("HTTP fuzzing on $name", ({ options }) => {
  it("random paths, query strings and bodies always get a ProtocolError or a result, never INTERNAL, and the bridge keeps serving", async () => {
    const harness = await startOnSharedEditor({ ...options(), limits: { maxHttpBodyBytes: 256 * 1024 } });
    const bystander = await harness.connect();
    const port = harness.bridge.port;
    const heapBefore = settledHeapBytes();
    const statuses = new Map<number, number>();

    await fc.assert(
      fc.asyncProperty(target, body, contentType, async (t, b, type) => {
        const headers: Record<string, string> = type === undefined ? {} : { "Content-Type": type };
        const head = requestHead(t.verb, `${t.path}${t.query}`, port, headers, b?.length);
        const response = await rawHttp(port, head, b);
        statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
        expect(response.status, `${t.verb} ${t.path}${t.query}`).toBeGreaterThanOrEqual(200);
        // 500 would mean a crash path reached the client; editor-side NOT_SUPPORTED (501) is an honest answer.
        expect(response.status, `${t.verb} ${t.path}${t.query} → ${response.body.toString().slice(0, 200)}`).not.toBe(500);
        if (response.status >= 400 && response.body.length > 0) {
          const error = JSON.parse(response.body.toString("utf8")) as { code: unknown; message: unknown };
          expect(typeof error.code).toBe("string");
          expect(typeof error.message).toBe("string");
          expect(response.body.toString()).not.toMatch(/\n\s+at /);
        }
      }),
      { numRuns: RUNS },
    );

    // Several kinds of answers, not one refusal for everything (the fuzzer reached real routes).
    expect(statuses.size).toBeGreaterThan(3);
    expect((await bystander.call<{ name: string }>("getServerInfo")).name).toBe("image-editor-bridge");
    expect((await harness.http("/health")).status).toBe(200);
    expect(settledHeapBytes() - heapBefore).toBeLessThan(HEAP_SLACK_BYTES);
  });

});

describe("HTTP edge cases", () => {
  it("query keys named after Object.prototype members are ordinary params, refused like any unknown key", async () => {
    const harness = await startOnSharedEditor({ host: new ScriptedHost() });
    for (const key of ["constructor", "__proto__", "toString", "hasOwnProperty"]) {
      const response = await harness.http(`/layer/by-id/2?${key}=1`);
      expect(response.status, key).toBe(400);
      expect(await response.json()).toMatchObject({ code: "BAD_REQUEST" });
    }
    expect((await harness.http("/layer/by-id/2")).status).toBe(200);
  });

  it("malformed request lines and headers are refused by the HTTP parser without touching other clients", async () => {
    const harness = await startOnSharedEditor({ host: new ScriptedHost() });
    const bystander = await harness.connect();
    const port = harness.bridge.port;
    const heads = [
      "GARBAGE\r\n\r\n",
      "GET / HTTP/9.9\r\nHost: 127.0.0.1\r\n\r\n",
      `GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nX: ${"a".repeat(70_000)}\r\n\r\n`,
      "POST /document/open HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\n",
      "POST /document/open HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n",
      "GET /\u0000 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",
      "POST /document/open HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
    ];
    for (const head of heads) {
      const response = await rawHttp(port, head).catch(() => ({ status: 0 }));
      // Node's parser answers 400/431 or just closes; either way nothing reaches a method.
      expect([0, 400, 431, 505]).toContain(response.status);
    }
    expect((await bystander.call<{ name: string }>("getServerInfo")).name).toBe("image-editor-bridge");
  });
});
