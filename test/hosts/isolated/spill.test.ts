import { randomBytes } from "node:crypto";
import { watch } from "node:fs";
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { createServer, Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import sharp from "sharp";
import { afterEach, describe, expect, it } from "vitest";
import { Channel } from "../../../src/hosts/isolated/channel.js";
import { SPILL_MIN_BYTES } from "../../../src/hosts/isolated/limits.js";
import { createSpillFolder, readSpilled, removeSpillFolder, SPILL_DIR_ENV, spillWriter } from "../../../src/hosts/isolated/spill.js";
import { ctx, startIsolated } from "./_support.js";

type Msg = { kind: string; [key: string]: unknown };

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** Two ends of a real stream socket (a UNIX socket in a temporary folder). */
async function socketPair(): Promise<[Socket, Socket]> {
  const dir = await mkdtemp(join(tmpdir(), "spill-sock-"));
  const path = join(dir, "s");
  const server = createServer();
  const accepted = new Promise<Socket>((resolve) => server.once("connection", resolve));
  await new Promise<void>((resolve) => server.listen(path, resolve));
  const client = new Socket();
  await new Promise<void>((resolve) => client.connect(path, resolve));
  const other = await accepted;
  cleanups.push(async () => {
    client.destroy();
    other.destroy();
    await new Promise((resolve) => server.close(resolve));
    await rm(dir, { recursive: true, force: true });
  });
  return [client, other];
}

/** A temporary spill folder (in shared memory when there is one, else under the temp dir). */
async function spillFolder(): Promise<string> {
  const dir = createSpillFolder() ?? (await mkdtemp(join(tmpdir(), "spill-")));
  cleanups.push(() => removeSpillFolder(dir));
  return dir;
}

function receiver(socket: Socket, dir: string | undefined): { messages: Msg[]; errors: Error[]; next(count: number): Promise<void> } {
  const messages: Msg[] = [];
  const errors: Error[] = [];
  const waiters: Array<() => void> = [];
  const wake = (): void => {
    for (const w of waiters.splice(0)) w();
  };
  const message = (m: Msg): void => {
    messages.push(m);
    wake();
  };
  const error = (e: Error): void => {
    errors.push(e);
    wake();
  };
  new Channel<Msg, Msg>(socket, { message, error, close: () => {} }, { dir });
  return {
    messages,
    errors,
    next: (count) =>
      new Promise((resolve) => {
        const check = (): void => (messages.length + errors.length >= count ? resolve() : void waiters.push(check));
        check();
      }),
  };
}

describe("large blobs through shared memory", () => {
  it("a large blob crosses as a file, small ones on the socket, and messages arrive in the order they were sent", async () => {
    const [a, b] = await socketPair();
    const dir = await spillFolder();
    const sender = new Channel<Msg, Msg>(a, { message: () => {}, error: () => {}, close: () => {} }, { writer: spillWriter(dir, SPILL_MIN_BYTES) });
    const got = receiver(b, dir);
    const big = Buffer.alloc(SPILL_MIN_BYTES + 17, 7);
    big[5] = 9;
    const small = Buffer.from([1, 2, 3]);
    sender.send({ kind: "result", image: { bytes: big }, list: [small, big] });
    sender.send({ kind: "event", n: 1 });
    await got.next(2);
    expect(got.errors).toEqual([]);
    expect(got.messages.map((m) => m.kind)).toEqual(["result", "event"]);
    const first = got.messages[0] as unknown as { image: { bytes: Buffer }; list: Buffer[] };
    expect(Buffer.compare(first.image.bytes, big)).toBe(0);
    expect(Buffer.compare(first.list[0]!, small)).toBe(0);
    expect(Buffer.compare(first.list[1]!, big)).toBe(0);
    // Every file was read and deleted.
    expect(await readdir(dir)).toEqual([]);
  });

  it("an object with a reserved key keeps its spilled blob", async () => {
    const [a, b] = await socketPair();
    const dir = await spillFolder();
    const sender = new Channel<Msg, Msg>(a, { message: () => {}, error: () => {}, close: () => {} }, { writer: spillWriter(dir, 1) });
    const got = receiver(b, dir);
    sender.send({ kind: "result", value: { $file: "looks like a marker", data: Buffer.from("pixels") } });
    await got.next(1);
    expect(got.messages[0]).toEqual({ kind: "result", value: { $file: "looks like a marker", data: Buffer.from("pixels") } });
  });

  it("a receiver that was given no folder refuses a spilled blob as a protocol error", async () => {
    const [a, b] = await socketPair();
    const dir = await spillFolder();
    const sender = new Channel<Msg, Msg>(a, { message: () => {}, error: () => {}, close: () => {} }, { writer: spillWriter(dir, 1) });
    const got = receiver(b, undefined);
    sender.send({ kind: "result", bytes: Buffer.from("x") });
    await got.next(1);
    expect(got.messages).toEqual([]);
    expect(got.errors[0]?.message).toMatch(/unexpected spilled blob/);
  });

  it("a name outside the folder, a missing file or a wrong size is refused", async () => {
    const dir = await spillFolder();
    await expect(readSpilled(dir, "../etc/passwd", 1)).rejects.toThrow(/bad spilled blob/);
    await expect(readSpilled(dir, "7", 1)).rejects.toThrow(/ENOENT/);
    await writeFile(join(dir, "8"), "abc");
    await expect(readSpilled(dir, "8", 4)).rejects.toThrow(/has 3 bytes, 4 announced/);
    expect(await readdir(dir)).toEqual([]);
  });

  it("a new folder sweeps the folders of bridges that are gone, with what they left, and keeps living ones", async () => {
    const probe = createSpillFolder();
    if (probe === undefined) return; // no shared memory here
    removeSpillFolder(probe);
    const child = spawn(process.execPath, ["-e", ""]);
    const [deadPid] = [child.pid!, await once(child, "exit")];
    const dead = join("/dev/shm", `image-editor-bridge-${deadPid}-test`);
    const living = join("/dev/shm", `image-editor-bridge-${process.ppid}-test`);
    for (const dir of [dead, living]) {
      await mkdir(dir);
      await writeFile(join(dir, "0"), "left behind");
    }
    cleanups.push(() => removeSpillFolder(living));
    const mine = await spillFolder();
    expect(mine).toMatch(new RegExp(`/image-editor-bridge-${process.pid}-`));
    await expect(readdir(dead)).rejects.toThrow(/ENOENT/);
    expect(await readdir(living)).toEqual(["0"]);
  });

  it("the editor process's exports come through its folder, which is empty after each call and gone after close", async () => {
    const host = await startIsolated({ sample: false });
    // The editor's own folder, from its environment: other test files start editors of their own meanwhile.
    const environ = await readFile(`/proc/${host.pid}/environ`, "utf8").catch(() => "");
    const folder = environ.split("\0").find((entry) => entry.startsWith(`${SPILL_DIR_ENV}=`))?.slice(SPILL_DIR_ENV.length + 1);
    if (folder === undefined) return; // no shared memory here (or no /proc): every blob takes the socket
    expect(folder).toMatch(new RegExp(`^/dev/shm/image-editor-bridge-${process.pid}-`));
    // Noise does not compress: its PNG is well over the spill size.
    const noise = randomBytes(800 * 600 * 3);
    const path = join(await spillFolder(), "noise.png");
    await sharp(noise, { raw: { width: 800, height: 600, channels: 3 } }).png().toFile(path);
    await host.openDocument!(ctx(), path);
    const created: string[] = [];
    const watcher = watch(folder, (_event, name) => created.push(String(name)));
    cleanups.push(() => watcher.close());
    const exported = await host.exportDocumentImage(ctx(), { documentId: undefined, format: "png", size: { width: 800, height: 600 } });
    expect(exported.bytes.byteLength).toBeGreaterThan(SPILL_MIN_BYTES);
    const decoded = await sharp(exported.bytes).raw().toBuffer({ resolveWithObject: true });
    expect(decoded.info).toMatchObject({ width: 800, height: 600 });
    // The editor wrote the image as a file there, and the bridge read and deleted it.
    expect(created.length).toBeGreaterThan(0);
    expect(await readdir(folder)).toEqual([]);
    await host.close();
    await expect(readdir(folder)).rejects.toThrow(/ENOENT/);
  });
});
