import { describe, expect, it } from "vitest";
import { main, parseListen, parseServeArgs, UsageError } from "../src/cli.js";

describe("command line", () => {
  it("defaults to serving the embedded editor on 127.0.0.1:7700", () => {
    expect(parseServeArgs([], {})).toMatchObject({ listen: { host: "127.0.0.1", port: 7700 }, editor: "embedded", sample: true });
  });

  it("flags win over BRIDGE_* environment variables, which win over defaults", () => {
    const env = { BRIDGE_LISTEN: "127.0.0.1:9000", BRIDGE_TOKEN: "env", BRIDGE_ALLOW_ORIGIN: "https://a.example, https://b.example" };
    expect(parseServeArgs(["serve"], env)).toMatchObject({
      listen: { port: 9000 },
      token: "env",
      allowOrigins: ["https://a.example", "https://b.example"],
    });
    expect(parseServeArgs(["serve", "--listen", "[::1]:7701", "--token", "flag", "--no-sample"], env)).toMatchObject({
      listen: { host: "::1", port: 7701 },
      token: "flag",
      sample: false,
    });
  });

  it("bad input is a UsageError with a clear message", () => {
    expect(() => parseListen("host:99999")).toThrow(UsageError);
    expect(() => parseServeArgs(["serve", "--bogus"], {})).toThrow(UsageError);
    expect(() => parseServeArgs(["launch"], {})).toThrow(/Unknown command/);
  });

  it("an unknown editor is refused with a clear message", async () => {
    await expect(main(["serve", "--editor", "krita"], { handleSignals: false, env: {} })).rejects.toThrow(/--editor expects one of/);
  });

  it("serve starts a bridge, prints a startup line with URL, editor and document, and closes", async () => {
    let printed = "";
    const bridge = await main(["serve", "--listen", "127.0.0.1:0", "--log-level", "silent"], {
      handleSignals: false,
      env: {},
      stdout: { write: (text: string) => (printed += text) },
    });
    try {
      expect(printed).toContain(bridge!.url);
      expect(printed).toMatch(/editor: embedded · document: Sample \(800×600\)/);
      expect((await fetch(`${bridge!.url}/health`)).status).toBe(200);
    } finally {
      await bridge!.close();
    }
  });
});

describe("command line failures", () => {
  it("--open of a missing file stops with a clear message instead of serving nothing", async () => {
    await expect(
      main(["serve", "--listen", "127.0.0.1:0", "--log-level", "silent", "--open", "/nonexistent/file.psd"], {
        handleSignals: false,
        env: {},
      }),
    ).rejects.toThrow(/could not start: .*file\.psd/);
  });
});
