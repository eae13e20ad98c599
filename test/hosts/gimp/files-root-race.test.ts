/**
 * `--files-root` against a race, with GIMP as the editor: while clients open and save documents in a folder inside
 * the root, another process keeps swapping that folder for a symlink to a folder outside the root and back. The
 * check at resolution passes on the real folder; GIMP's load and the save's temporary file and rename come a moment
 * later. No open may read the outside file and no save may leave a file in the outside folder: GIMP only ever
 * loads and writes files of the bridge's private exchange folder, and the bridge moves the bytes through the
 * folder it holds from the root (test/reliability/files-root-race.test.ts does the same for the embedded editor).
 */
import type { ChildProcess } from "node:child_process";
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createBridge, type Bridge } from "../../../src/bridge/bridge.js";
import { createGimpHost } from "../../../src/hosts/gimp/index.js";
import { TestClient } from "../../helpers/ws-client.js";
import { GIMP_BINARY, GIMP_SKIP } from "./_support.js";
import { INSIDE, OUTSIDE, png, raceUntilThrough, startSwapper, stopSwapper } from "../../helpers/symlink-race.js";

/** Calls of each kind raced (GIMP is slow; before the fix about one in ten opens and saves escaped). */
const CALLS = 60;
/** At most this many of each kind: past `CALLS` the race goes on only until one call of the kind got through. */
const MAX_CALLS = 600;
/** Calls in flight at once per kind: GIMP runs one at a time, so a second one only keeps its queue full. */
const CONCURRENCY = 2;
/**
 * Longest the real folder and the link each stay in place. A save needs the real folder twice (at the check and when
 * the bridge copies GIMP's file in); against a swapper with no rest, 600 saves in a row once all met the link.
 */
const DWELL_MS = 3;

describe.skipIf(GIMP_SKIP !== undefined)("--files-root with GIMP against a folder swapped for a symlink", () => {
  let bridge: Bridge;
  let swapper: ChildProcess | undefined;
  const clients: TestClient[] = [];
  let dir = "";
  let root = "";
  let outside = "";

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "gimp-files-race-"));
    root = join(dir, "root");
    outside = join(dir, "outside");
    await mkdir(join(root, "sub"), { recursive: true });
    await mkdir(outside);
    const host = createGimpHost({ binary: GIMP_BINARY, attach: undefined, sample: false, recovery: false });
    bridge = createBridge({ host, listen: { host: "127.0.0.1", port: 0 }, files: { roots: [root] }, limits: { callTimeoutMs: 60_000 } });
    await bridge.start();
  }, 90_000);

  afterAll(async () => {
    await stopSwapper(swapper);
    for (const client of clients.splice(0)) await client.close();
    await bridge?.close();
    if (dir !== "") await rm(dir, { recursive: true, force: true });
  });

  it("no open reads the outside file and no save writes into the outside folder", { timeout: 300_000 }, async () => {
    await writeFile(join(root, "sub", "a.png"), await png(INSIDE));
    const secret = await png(OUTSIDE);
    await writeFile(join(outside, "a.png"), secret);
    const [opener, saver] = await Promise.all([0, 1].map(() => TestClient.open(bridge.wsUrl)));
    clients.push(opener!, saver!);
    // The saved document, opened before the race (its path is inside the root, so nothing refuses it).
    const saved = await saver!.call<{ id: number }>("document:open", { path: "sub/a.png" });

    swapper = startSwapper(join(root, "sub"), join(root, "sub-moved"), outside, DWELL_MS);

    const escapes: string[] = [];
    const done = { opens: 0, saves: 0 };
    const refusals = new Map<string, number>();
    const refused = (error: unknown): void => {
      const code = String((error as { code?: string }).code ?? error);
      refusals.set(code, (refusals.get(code) ?? 0) + 1);
    };
    await Promise.all([
      raceUntilThrough(CALLS, MAX_CALLS, CONCURRENCY, async () => {
        try {
          const doc = await opener!.call<{ id: number; width: number }>("document:open", { path: "sub/a.png" });
          done.opens++;
          if (doc.width === OUTSIDE) escapes.push(`document:open read the outside file (document ${doc.id})`);
          await opener!.call("document:close", { documentId: doc.id });
          return true;
        } catch (error) {
          refused(error);
          return false;
        }
      }),
      raceUntilThrough(CALLS, MAX_CALLS, CONCURRENCY, async (i) => {
        try {
          await saver!.call("document:save", { documentId: saved.id, savePath: `sub/s-${i}.xcf` });
          done.saves++;
          return true;
        } catch (error) {
          refused(error);
          return false;
        }
      }),
    ]);
    await stopSwapper(swapper);

    expect(escapes).toEqual([]);
    // Nothing was written outside: the folder holds its one file, unchanged.
    expect(await readdir(outside)).toEqual(["a.png"]);
    expect((await readFile(join(outside, "a.png"))).equals(secret)).toBe(true);
    // The race was real both ways: calls went through, and some met the link (or the folder gone) and were refused.
    expect(done.opens, JSON.stringify([...refusals])).toBeGreaterThan(0);
    expect(done.saves, JSON.stringify([...refusals])).toBeGreaterThan(0);
    expect(refusals.size).toBeGreaterThan(0);
    expect([...refusals.keys()].every((code) => ["FORBIDDEN", "NOT_FOUND", "BAD_REQUEST"].includes(code)), JSON.stringify([...refusals])).toBe(true);
  });
});
