/**
 * `--files-root` against a race: while clients open, import and export files in a folder inside the root, another
 * process keeps swapping that folder for a symlink to a folder outside the root and back. The check at resolution
 * passes on the real folder; the open, the temporary file and the rename happen a moment later. Against the bridge
 * as users run it (the CLI in a child process, its editor in its own process): no call may read the outside file or
 * leave a file in the outside folder, and another client's `/health` answers throughout.
 */
import type { ChildProcess } from "node:child_process";
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startBridgeProcess, type BridgeProcess } from "../helpers/bridge-process.js";
import { TestClient } from "../helpers/ws-client.js";
import { INSIDE, OUTSIDE, png, pool, startSwapper, stopSwapper } from "../helpers/symlink-race.js";

/** Calls of each kind raced: the audit saw 7 of 300 opens and 6 exports escape before the fix. */
const CALLS = 300;
/** Calls in flight at once per kind, so the race window comes up often on a busy machine. */
const CONCURRENCY = 4;
/** Generous bound: only a stall of several seconds fails it (see abuse.test.ts). */
const HEALTH_WORST_MS = 4_000;

let bridge: BridgeProcess | undefined;
let swapper: ChildProcess | undefined;
const clients: TestClient[] = [];
let dir = "";

afterEach(async () => {
  await stopSwapper(swapper);
  swapper = undefined;
  for (const client of clients.splice(0)) client.ws.terminate();
  await bridge?.stop();
  bridge = undefined;
  if (dir !== "") await rm(dir, { recursive: true, force: true });
  dir = "";
});

describe("--files-root against a folder swapped for a symlink", () => {
  it("no open, import or export reaches the outside folder while a folder inside is swapped for a link to it, and /health answers", { timeout: 120_000 }, async () => {
    dir = await mkdtemp(join(tmpdir(), "files-race-"));
    const root = join(dir, "root");
    const outside = join(dir, "outside");
    await mkdir(join(root, "sub"), { recursive: true });
    await mkdir(outside);
    await writeFile(join(root, "sub", "a.png"), await png(INSIDE));
    const secret = await png(OUTSIDE);
    await writeFile(join(outside, "a.png"), secret);

    bridge = await startBridgeProcess({ args: ["--files-root", root] });
    const served = bridge;
    const [opener, importer, exporter] = await Promise.all([0, 1, 2].map(() => TestClient.open(served.wsUrl)));
    clients.push(opener!, importer!, exporter!);
    // The export's document, a real one (not the sample): opened before the race.
    const exported = await exporter!.call<{ id: number }>("document:open", { path: "sub/a.png" });
    const target = await importer!.call<{ id: number }>("document:open", { path: "sub/a.png" });
    served.reset();

    swapper = startSwapper(join(root, "sub"), join(root, "sub-moved"), outside);

    const escapes: string[] = [];
    const refusals = new Map<string, number>();
    const refused = (error: unknown): void => {
      const code = String((error as { code?: string }).code ?? error);
      refusals.set(code, (refusals.get(code) ?? 0) + 1);
    };
    await Promise.all([
      pool(CALLS, CONCURRENCY, async () => {
        try {
          const doc = await opener!.call<{ id: number; width: number }>("document:open", { path: "sub/a.png" });
          if (doc.width === OUTSIDE) escapes.push(`document:open read the outside file (document ${doc.id})`);
          await opener!.call("document:close", { documentId: doc.id });
        } catch (error) {
          refused(error);
        }
      }),
      pool(CALLS, CONCURRENCY, async () => {
        try {
          const layer = await importer!.call<{ id: number; bounds: { width: number } }>("layer:importImage", { image: "sub/a.png", documentId: target.id });
          if (layer.bounds.width === OUTSIDE) escapes.push(`layer:importImage read the outside file (layer ${layer.id})`);
        } catch (error) {
          refused(error);
        }
      }),
      pool(CALLS, CONCURRENCY, async (i) => {
        try {
          await exporter!.call("document:export", { documentId: exported.id, path: `sub/e-${i}.png` });
        } catch (error) {
          refused(error);
        }
      }),
    ]);
    await stopSwapper(swapper);

    expect(escapes).toEqual([]);
    // Nothing was written outside: the folder holds its one file, unchanged.
    expect(await readdir(outside)).toEqual(["a.png"]);
    expect((await readFile(join(outside, "a.png"))).equals(secret)).toBe(true);
    // The race was real: some calls met the link (or the folder gone) and were refused.
    expect([...refusals.keys()].every((code) => ["FORBIDDEN", "NOT_FOUND", "BAD_REQUEST"].includes(code)), JSON.stringify([...refusals])).toBe(true);

    await served.morePings(3);
    const health = served.health();
    expect(health.failures).toEqual([]);
    expect(health.worstMs).toBeLessThan(HEALTH_WORST_MS);
  });
});
