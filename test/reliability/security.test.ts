import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createBridge } from "../../src/bridge/bridge.js";
import { startOnSharedEditor } from "../helpers/shared-editor.js";
import { FaultHost } from "../helpers/fault-host.js";
import { rawHttp, requestHead } from "../helpers/raw-http.js";
import { RawWsClient } from "../helpers/raw-ws.js";
import { ScriptedHost } from "../helpers/scripted-host.js";
import { TestClient } from "../helpers/ws-client.js";

const TOKEN = "s3cret-Token-0123456789";

const FOREIGN_HOSTS = ["evil.example", "evil.example:7700", "127.0.0.1.nip.io", "localhost.evil.example", "0x7f000001", "[::2]:80", "10.0.0.1"];
const LOOPBACK_HOSTS = ["localhost:1", "127.0.0.5", "[::1]:7700", "app.localhost"];
const FOREIGN_ORIGINS = ["null", "http://evil.example", "http://localhost.evil.example", "file://", "chrome-extension://abcdef", "http://127.0.0.1.evil.example", "ws://127.0.0.1"];
const LOOPBACK_ORIGINS = ["http://localhost:3000", "https://127.0.0.1", "http://[::1]:5"];

describe("DNS rebinding and cross-site requests", () => {
  it("a foreign Host is refused with 403 over HTTP and WS; loopback names are accepted", async () => {
    const harness = await startOnSharedEditor({ host: new ScriptedHost() });
    const port = harness.bridge.port;
    for (const host of FOREIGN_HOSTS) {
      const response = await rawHttp(port, requestHead("GET", "/document/current", port, { Host: host }).replace(`Host: 127.0.0.1:${port}\r\n`, ""));
      expect(response.status, host).toBe(403);
      expect(JSON.parse(response.body.toString())).toMatchObject({ code: "FORBIDDEN" });
      await expect(RawWsClient.open(port, "/ws", { Host: host }), host).rejects.toThrow(/403/);
    }
    for (const host of LOOPBACK_HOSTS) {
      const response = await rawHttp(port, requestHead("GET", "/health", port, { Host: host }).replace(`Host: 127.0.0.1:${port}\r\n`, ""));
      expect(response.status, host).toBe(200);
    }
  });

  it("a foreign Origin is refused for requests, preflights and upgrades; loopback origins are accepted", async () => {
    const harness = await startOnSharedEditor({ host: new ScriptedHost() });
    const port = harness.bridge.port;
    for (const origin of FOREIGN_ORIGINS) {
      expect((await rawHttp(port, requestHead("GET", "/health", port, { Origin: origin }))).status, origin).toBe(403);
      const preflight = requestHead("OPTIONS", "/selection/set", port, { Origin: origin, "Access-Control-Request-Method": "POST" });
      expect((await rawHttp(port, preflight)).status, origin).toBe(403);
      await expect(RawWsClient.open(port, "/ws", { Origin: origin }), origin).rejects.toThrow(/403/);
    }
    for (const origin of LOOPBACK_ORIGINS) {
      const response = await rawHttp(port, requestHead("GET", "/health", port, { Origin: origin }));
      expect(response.status, origin).toBe(200);
      expect(response.headers["access-control-allow-origin"]).toBe(origin);
    }
  });
});

describe("access token", () => {
  const wrongTokens = ["", "s", TOKEN.slice(0, -1), `${TOKEN}x`, TOKEN.toUpperCase(), `${TOKEN.slice(0, -1)}?`, "x".repeat(10_000), "s3cret-Token-012345678\u00e9"];

  it("wrong tokens of every length are refused 401 over HTTP and WS, and the right one is accepted", async () => {
    const harness = await startOnSharedEditor({ host: new ScriptedHost(), token: TOKEN });
    const port = harness.bridge.port;
    for (const wrong of wrongTokens) {
      const response = await rawHttp(port, requestHead("GET", "/document/current", port, { Authorization: `Bearer ${wrong}` }));
      expect(response.status, `len ${wrong.length}`).toBe(401);
      expect(response.body.toString()).not.toContain(TOKEN);
      if (wrong.length > 0 && !/[^\x21-\x7e]/.test(wrong)) {
        await expect(RawWsClient.open(port, "/ws", { "Sec-WebSocket-Protocol": `bearer.${wrong}` })).rejects.toThrow(/401/);
      }
    }
    for (const other of [`Basic ${Buffer.from(`u:${TOKEN}`).toString("base64")}`, `Token ${TOKEN}`, TOKEN]) {
      expect((await rawHttp(port, requestHead("GET", "/health", port, { Authorization: other }))).status, other).toBe(401);
    }
    expect((await rawHttp(port, requestHead("GET", `/health?token=${TOKEN}`, port))).status).toBe(401);
    expect((await rawHttp(port, requestHead("GET", "/health", port, { Authorization: `Bearer ${TOKEN}` }))).status).toBe(200);
    const client = await TestClient.open(harness.bridge.wsUrl, { protocols: [`bearer.${TOKEN}`] });
    expect((await client.call<{ name: string }>("getServerInfo")).name).toBe("image-editor-bridge");
    await client.close();
  });

  it("the bridge refuses to listen on a non-loopback address without a token", () => {
    for (const host of ["0.0.0.0", "::", "192.168.1.10", "example.com"]) {
      expect(() => createBridge({ host: new ScriptedHost(), listen: { host, port: 0 } }), host).toThrow(/token/);
    }
    expect(() => createBridge({ host: new ScriptedHost(), listen: { host: "localhost", port: 0 } })).not.toThrow();
  });

  it("off loopback the bridge also needs files roots, or --allow-any-path said explicitly", () => {
    for (const host of ["0.0.0.0", "::", "192.168.1.10"]) {
      expect(() => createBridge({ host: new ScriptedHost(), listen: { host, port: 0 }, token: TOKEN }), host).toThrow(/--files-root/);
      expect(() => createBridge({ host: new ScriptedHost(), listen: { host, port: 0 }, token: TOKEN, files: { roots: ["/srv"] } })).not.toThrow();
      expect(() => createBridge({ host: new ScriptedHost(), listen: { host, port: 0 }, token: TOKEN, files: { allowAnyPath: true } })).not.toThrow();
    }
  });

  it("with a token, requests without it are 401 whatever their Host, and any Host is accepted with it", async () => {
    // Listens on loopback only (tests never bind other addresses); the Host header plays the remote name.
    const harness = await startOnSharedEditor({ host: new ScriptedHost(), token: TOKEN });
    const port = harness.bridge.port;
    for (const host of ["192.168.1.10:7700", "bridge.example", `127.0.0.1:${port}`]) {
      const head = (auth: Record<string, string>) => requestHead("GET", "/health", port, { Host: host, ...auth });
      expect((await rawHttp(port, head({}))).status, host).toBe(401);
      expect((await rawHttp(port, head({ Authorization: "Bearer nope" }))).status, host).toBe(401);
      expect((await rawHttp(port, head({ Authorization: `Bearer ${TOKEN}` }))).status, host).toBe(200);
    }
  });
});

describe("what errors and logs reveal", () => {
  it("error bodies carry no stack traces, thrown messages or the token, and logs never contain the token", async () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(chunk.toString());
        done();
      },
    });
    const host = new FaultHost();
    const harness = await startOnSharedEditor({ host, token: TOKEN, logger: pino({ level: "trace" }, sink) });
    const port = harness.bridge.port;
    const auth = { Authorization: `Bearer ${TOKEN}` };
    host.inject({ kind: "throw", value: new Error(`editor exploded near ${TOKEN.slice(0, 4)}-secret-detail`) });
    const internal = await rawHttp(port, requestHead("GET", "/document/current", port, auth));
    expect(internal.status).toBe(500);
    expect(JSON.parse(internal.body.toString())).toEqual({ code: "INTERNAL", message: "Internal error", retryable: false, source: "bridge", method: "document:current" });
    const bodies = [internal.body.toString()];
    bodies.push((await rawHttp(port, requestHead("GET", "/document/current", port, { Authorization: `Bearer ${TOKEN}-wrong` }))).body.toString());
    bodies.push((await rawHttp(port, requestHead("POST", "/selection/set", port, auth, 9), Buffer.from("{not json"))).body.toString());
    const client = await TestClient.open(harness.bridge.wsUrl, { protocols: [`bearer.${TOKEN}`] });
    host.inject({ kind: "reject", value: new TypeError("secret-detail in a TypeError") });
    bodies.push(JSON.stringify(await client.send("document:current")));
    bodies.push(JSON.stringify(await client.send("layer:getInfoById", { layerId: "nope" })));
    await client.close();
    for (const body of bodies) {
      expect(body).not.toMatch(/\n\s+at |secret-detail/);
      expect(body).not.toContain(TOKEN);
    }
    // The operator still learns what failed: the internal error is logged, without the token anywhere.
    expect(lines.some((l) => l.includes("call failed with an internal error"))).toBe(true);
    for (const line of lines) expect(line).not.toContain(TOKEN);
  });
});

describe("paths and URLs the editor may be pointed at", () => {
  let dir: string;
  let scriptsDir: string;
  let target: Server;
  let hits = 0;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "bridge-security-"));
    scriptsDir = join(dir, "scripts");
    await mkdir(join(scriptsDir, "sub"), { recursive: true });
    await writeFile(join(scriptsDir, "ok.js"), "1 + 1");
    await writeFile(join(dir, "secret.js"), "'the secret script ran'");
    await writeFile(join(dir, "secret.txt"), "root:x:0:0:secret-file-content\n");
    await symlink(join(dir, "secret.js"), join(scriptsDir, "link.js"));
    await symlink(dir, join(scriptsDir, "sub", "up"));
    target = createServer((_req, res) => {
      hits++;
      res.end("not an image");
    });
    await new Promise<void>((resolve) => target.listen(0, "127.0.0.1", resolve));
  });

  afterAll(async () => {
    await new Promise((resolve) => target.close(resolve));
    await rm(dir, { recursive: true, force: true });
  });

  it("jsx:execute runs named scripts only from inside the script folders", async () => {
    const harness = await startOnSharedEditor({ scriptDirs: [scriptsDir] });
    const client = await harness.connect();
    const ok = await client.send("jsx:execute", { name: "ok" });
    expect(ok.ok, JSON.stringify(ok.error)).toBe(true);
    const names = ["../secret", "../secret.js", join(dir, "secret.js"), "sub/../../secret", "link", "sub/up/secret", "..\\secret", "ok\u0000", "%2e%2e/secret", "./../secret"];
    for (const name of names) {
      const frame = await client.send("jsx:execute", { name });
      expect(frame.ok, name).toBe(false);
      expect(["BAD_REQUEST", "FORBIDDEN", "NOT_FOUND"], name).toContain(frame.error!.code);
      expect(JSON.stringify(frame)).not.toContain("the secret script ran");
    }
  });

  it("layer:importImage refuses file: URIs and local paths when file import is off", async () => {
    const harness = await startOnSharedEditor({ imports: { allowFile: false } });
    const client = await harness.connect();
    for (const image of [`file://${join(dir, "secret.txt")}`, join(dir, "secret.txt"), "../../etc/passwd", "./x.png", "~/x.png", "FILE:///etc/passwd"]) {
      const frame = await client.send("layer:importImage", { image });
      expect(frame.error?.code, image).toBe("FORBIDDEN");
    }
  });

  it("with file import on, a file that is not an image is refused without echoing its content", async () => {
    const harness = await startOnSharedEditor({});
    const client = await harness.connect();
    for (const image of [join(dir, "secret.txt"), `file://${join(dir, "secret.txt")}`, `${dir}/scripts/../secret.txt`]) {
      const frame = await client.send("layer:importImage", { image });
      expect(frame.ok, image).toBe(false);
      expect(JSON.stringify(frame)).not.toContain("secret-file-content");
    }
    const opened = await client.send("document:open", { path: `${scriptsDir}/../secret.txt` });
    expect(opened.ok).toBe(false);
    expect(opened.error!.code).not.toBe("INTERNAL");
    expect(JSON.stringify(opened)).not.toContain("secret-file-content");
  });

  it("URL imports to loopback and private addresses are refused by default and never fetched", async () => {
    const harness = await startOnSharedEditor({});
    const client = await harness.connect();
    const port = (target.address() as AddressInfo).port;
    const urls = [
      `http://127.0.0.1:${port}/x.png`,
      `http://localhost:${port}/x.png`,
      `http://[::1]:${port}/x.png`,
      `http://0x7f000001:${port}/x.png`,
      `http://2130706433:${port}/x.png`,
      `http://127.1:${port}/x.png`,
      "http://169.254.169.254/latest/meta-data",
      "http://10.0.0.1/x.png",
      "http://[::ffff:127.0.0.1]/x.png",
    ];
    for (const image of urls) {
      const frame = await client.send("layer:importImage", { image });
      expect(frame.error?.code, image).toBe("FORBIDDEN");
    }
    expect(hits).toBe(0);
  });

  it("with private URLs allowed, the same loopback URL is fetched (the refusal above is real)", async () => {
    const harness = await startOnSharedEditor({ imports: { allowPrivateUrl: true } });
    const client = await harness.connect();
    const port = (target.address() as AddressInfo).port;
    const before = hits;
    const frame = await client.send("layer:importImage", { image: `http://127.0.0.1:${port}/x.png` });
    expect(frame.ok).toBe(false); // the body is not an image
    expect(hits).toBe(before + 1);
  });
});
