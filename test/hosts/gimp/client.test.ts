import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BridgeError } from "../../../src/protocol/index.js";
import { GimpClient, MAX_INLINE_REPLY_CHARS, exchange, lit, parseSexp, sexpToJson } from "../../../src/hosts/gimp/index.js";
import type { Endpoint } from "../../../src/hosts/gimp/index.js";
import { GIMP_SKIP, sharedGimp } from "./_support.js";

describe("Script-Fu values", () => {
  it("parses what TinyScheme writes: lists, vectors, strings with escapes, numbers, booleans, symbols", () => {
    expect(sexpToJson(parseSexp('(4 #(4 3 2 1) "a\\"b\\\\c\\n" 1.5 -2 1e+20 #t #f () sym)'))).toEqual([
      4,
      [4, 3, 2, 1],
      'a"b\\c\n',
      1.5,
      -2,
      1e20,
      true,
      false,
      [],
      "sym",
    ]);
  });

  it("refuses truncated or trailing text instead of guessing", () => {
    expect(() => parseSexp("(1 2")).toThrow();
    expect(() => parseSexp('"abc')).toThrow();
    expect(() => parseSexp("(1) 2")).toThrow();
  });

  it("builds long literals from pieces TinyScheme can read", () => {
    expect(lit("x".repeat(2500))).toMatch(/^\(string-append "x{1000}" "x{1000}" "x{500}"\)$/);
    expect(() => lit("a\0b")).toThrow(BridgeError);
  });
});

describe.skipIf(GIMP_SKIP !== undefined)("the Script-Fu client against a real GIMP", () => {
  let endpoint: Endpoint;
  let dir: string;
  const faults: string[] = [];
  let client: GimpClient;
  beforeAll(async () => {
    endpoint = await sharedGimp();
    dir = await mkdtemp(join(tmpdir(), "gimp-client-"));
    client = new GimpClient({ endpoint: () => endpoint, workDir: () => dir, fault: (reason) => {
        faults.push(reason);
        return { restarted: false };
      },
    });
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });
  const call = (form: string) => client.call(form, { timeoutMs: 10_000 });

  it("round-trips hostile strings unchanged: quotes, backslashes, UTF-8, newlines and code-like text", async () => {
    const samples = ['a"b', "back\\slash\\", 'ü ß 漢字 🎨', "line\nbreak\ttab", '") (gimp-quit 0) ("', "x".repeat(3_000), "\\\"\\\""];
    for (const text of samples) {
      expect(await call(lit(text))).toBe(text);
      expect(await call(`(string-length ${lit(text)})`)).toBe(Array.from(text).length);
    }
  });

  it("an incomplete script answers an error instead of the #<EOF> GIMP prints", async () => {
    await expect(call("(+ 1")).rejects.toMatchObject({ code: "INTERNAL", message: expect.stringContaining("incomplete") });
    expect(await call("(+ 1 2)")).toBe(3);
  });

  it("a stale catch handler left by one script does not swallow the next script's error", async () => {
    // `(catch X (error …))` leaves a handler in the global *handlers*; without the reset a later failing call
    // would "succeed" with ("ERR" #<CLOSURE>).
    await client.call('(catch "ERR" (error "boom"))', { timeoutMs: 10_000 }).catch(() => {});
    await expect(call("(gimp-item-get-name 999999)")).rejects.toMatchObject({ code: "INTERNAL", details: { gimpError: expect.stringContaining("gimp-item-get-name") } });
  });

  it("replies longer than 64 KiB arrive whole through a file", async () => {
    const size = MAX_INLINE_REPLY_CHARS * 5;
    const value = await call(`(make-string ${size} #\\q)`);
    expect(value).toBe("q".repeat(size));
  });

  it("a reply of many atoms arrives whole (Script-Fu's string ports would cut atoms at their 256-byte blocks)", async () => {
    const numbers = Array.from({ length: 400 }, (_, i) => 10_000 + i);
    expect(await call(`(list ${numbers.join(" ")})`)).toEqual(numbers);
  });

  it("a script longer than the 16-bit length field is refused before sending", async () => {
    await expect(call(lit("y".repeat(70_000)))).rejects.toMatchObject({ code: "PAYLOAD_TOO_LARGE" });
    expect(faults).toEqual([]);
  });

  it("a cancelled call is left to finish: GIMP is not restarted, and its answer still arrives", async () => {
    const controller = new AbortController();
    const pending = client.call("(let loop ((i 0)) (if (< i 200000) (loop (+ i 1)) i))", { timeoutMs: 10_000, signal: controller.signal });
    controller.abort(new BridgeError("CANCELLED", "cancelled by its caller"));
    expect(await pending).toBe(200_000);
    expect(faults).toEqual([]);
  });

  it("a frame with a wrong magic byte is dropped by GIMP, and the next call works", async () => {
    const { connect } = await import("node:net");
    await new Promise<void>((resolve) => {
      const socket = connect(endpoint.port, endpoint.host, () => socket.write(Buffer.from([0x48, 0, 1, 0x31])));
      socket.on("close", () => resolve());
      socket.on("error", () => {});
    });
    expect((await exchange(endpoint, "(+ 2 2)")).body).toBe("4");
  });
});
