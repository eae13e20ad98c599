import { execFileSync } from "node:child_process";
import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createFilePolicy, readRegularFile, resolveClientPath, UNCONFINED, type FilePolicy } from "../../src/files/index.js";

let base = "";
let root = "";
let outside = "";
let policy: FilePolicy;

beforeAll(async () => {
  base = await realpath(await mkdtemp(join(tmpdir(), "bridge-files-")));
  root = join(base, "root");
  outside = join(base, "outside");
  await mkdir(join(root, "sub"), { recursive: true });
  await mkdir(outside);
  await writeFile(join(root, "in.png"), "inside");
  await writeFile(join(root, "big.png"), Buffer.alloc(2048));
  await writeFile(join(outside, "secret.png"), "outside");
  await symlink(join(outside, "secret.png"), join(root, "escape.png"));
  await symlink(join(root, "in.png"), join(root, "sub", "alias.png"));
  await symlink("/dev/zero", join(root, "zero.png"));
  execFileSync("mkfifo", [join(root, "pipe.psd")]);
  policy = await createFilePolicy([root]);
});
afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});

const read = (input: string, maxBytes?: number) => resolveClientPath(policy, input, { purpose: "read", maxBytes });

describe("resolving client paths against files roots", () => {
  it("a file inside the root resolves to its real path, relative paths against the first root", async () => {
    await expect(read(join(root, "in.png"))).resolves.toEqual({ path: join(root, "in.png"), size: 6 });
    await expect(read("in.png")).resolves.toMatchObject({ path: join(root, "in.png") });
    await expect(read("sub/alias.png")).resolves.toMatchObject({ path: join(root, "in.png") });
  });

  it("'..', absolute paths outside and symlinks out are FORBIDDEN naming the roots, never where they lead", async () => {
    for (const input of ["../outside/secret.png", `${root}/sub/../in.png`, join(outside, "secret.png"), "/etc/passwd", "escape.png"]) {
      const error = await read(input).then(
        () => undefined,
        (e: unknown) => e as { code: string; message: string; details: Record<string, unknown> },
      );
      expect(error, input).toMatchObject({ code: "FORBIDDEN", details: { path: input, roots: [root] } });
      expect(error!.message).toContain(root);
      if (input === "escape.png") expect(JSON.stringify(error)).not.toContain(outside);
    }
  });

  it("NUL is BAD_REQUEST; a FIFO and a folder are refused without opening them; a link to a device leads outside", async () => {
    await expect(read("in.png\0.png")).rejects.toMatchObject({ code: "BAD_REQUEST" });
    await expect(read("zero.png")).rejects.toMatchObject({ code: "FORBIDDEN" });
    await expect(read("pipe.psd")).rejects.toMatchObject({ code: "BAD_REQUEST", details: { fileType: "fifo" } });
    await expect(read("sub")).rejects.toMatchObject({ code: "BAD_REQUEST", details: { fileType: "directory" } });
  });

  it("a file over the read limit is PAYLOAD_TOO_LARGE; a missing one NOT_FOUND", async () => {
    await expect(read("big.png", 1024)).rejects.toMatchObject({ code: "PAYLOAD_TOO_LARGE", details: { size: 2048, maxBytes: 1024 } });
    await expect(read("none.png")).rejects.toMatchObject({ code: "NOT_FOUND" });
  });

  it("a write target needs an existing folder inside the root and may not be a device or folder", async () => {
    const write = (input: string) => resolveClientPath(policy, input, { purpose: "write" });
    await expect(write("new.psd")).resolves.toEqual({ path: join(root, "new.psd"), size: undefined });
    await expect(write("sub/alias.png")).resolves.toMatchObject({ path: join(root, "in.png"), size: 6 });
    await expect(write("escape.png")).rejects.toMatchObject({ code: "FORBIDDEN" });
    await expect(write("zero.png")).rejects.toMatchObject({ code: "FORBIDDEN" });
    await expect(write("nowhere/new.psd")).rejects.toMatchObject({ code: "NOT_FOUND" });
    await expect(write("sub")).rejects.toMatchObject({ code: "BAD_REQUEST" });
  });

  it("a path another machine opens gets the lexical check only, in its own path flavour", async () => {
    const remote = { purpose: "read", filesystem: "remote" } as const;
    await expect(resolveClientPath({ roots: ["/srv/art"] }, "a/b.psd", remote)).resolves.toEqual({ path: "/srv/art/a/b.psd" });
    await expect(resolveClientPath({ roots: ["/srv/art"] }, "/srv/other/b.psd", remote)).rejects.toMatchObject({ code: "FORBIDDEN" });
    await expect(resolveClientPath({ roots: ["C:\\Art"] }, "c:\\art\\x.psd", remote)).resolves.toEqual({ path: "c:\\art\\x.psd" });
    await expect(resolveClientPath({ roots: ["C:\\Art"] }, "D:\\x.psd", remote)).rejects.toMatchObject({ code: "FORBIDDEN" });
    await expect(resolveClientPath({ roots: ["C:\\Art"] }, "..\\x.psd", remote)).rejects.toMatchObject({ code: "FORBIDDEN" });
  });

  it("unconfined, any path resolves (relative to the working folder) but devices and FIFOs are still refused", async () => {
    await expect(resolveClientPath(UNCONFINED, join(outside, "secret.png"), { purpose: "read" })).resolves.toMatchObject({ size: 7 });
    await expect(resolveClientPath(UNCONFINED, join(root, "zero.png"), { purpose: "read" })).rejects.toMatchObject({
      code: "BAD_REQUEST",
      details: { fileType: "character device" },
    });
    await expect(resolveClientPath(UNCONFINED, join(root, "pipe.psd"), { purpose: "read" })).rejects.toMatchObject({ code: "BAD_REQUEST" });
  });

  it("a files root that does not exist or is a file is refused when the policy is made", async () => {
    await expect(createFilePolicy([join(base, "nope")])).rejects.toMatchObject({ code: "BAD_REQUEST" });
    await expect(createFilePolicy([join(root, "in.png")])).rejects.toMatchObject({ code: "BAD_REQUEST" });
  });
});

describe("reading a file the bridge itself reads", () => {
  it("refuses a FIFO and a device at once even when called without the resolver, and a symlink swapped in", async () => {
    await expect(readRegularFile(join(root, "pipe.psd"), { maxBytes: 1024 })).rejects.toMatchObject({ code: "BAD_REQUEST" });
    await expect(readRegularFile("/dev/zero", { maxBytes: 1024 })).rejects.toMatchObject({ code: "BAD_REQUEST" });
    await expect(readRegularFile(join(root, "escape.png"), { maxBytes: 1024 })).rejects.toMatchObject({ code: "BAD_REQUEST" });
  });

  it("reads whole files within the bound, refuses bigger ones, and stops when the call is aborted", async () => {
    expect(String(await readRegularFile(join(root, "in.png"), { maxBytes: 6 }))).toBe("inside");
    await expect(readRegularFile(join(root, "big.png"), { maxBytes: 2047 })).rejects.toMatchObject({ code: "PAYLOAD_TOO_LARGE" });
    await expect(readRegularFile(join(root, "big.png"), { maxBytes: 4096, signal: AbortSignal.abort() })).rejects.toMatchObject({ code: "TIMEOUT" });
  });
});
