import { afterEach, describe, expect, it, vi } from "vitest";
import { createEditorHosts } from "../../../src/hosts/factory.js";
import { exchange, type GimpHost } from "../../../src/hosts/gimp/index.js";
import type { HostCallContext } from "../../../src/hosts/host.js";
import { silentLogger } from "../../../src/logger.js";
import { GIMP_BINARY, GIMP_SKIP, sharedGimp } from "./_support.js";

/*
 * Several GIMPs the bridge supervises itself. Each start costs seconds (two cold GIMPs at once on 2 cores take
 * ~15 s), hence the long per-test deadlines; every wait is on a call or a process exit, never a sleep.
 */

// Ports the next picks must hand out, to put a GIMP on a port another server holds; real picks otherwise.
const forced = vi.hoisted(() => [] as number[]);
vi.mock("../../../src/hosts/gimp/ports.js", async (importOriginal) => {
  const real = await importOriginal<typeof import("../../../src/hosts/gimp/ports.js")>();
  return { ...real, claimPort: async (): Promise<number> => forced.shift() ?? real.claimPort() };
});

const ctx: HostCallContext = { signal: new AbortController().signal, caller: "test" };
const POOL_TIMEOUT_MS = 120_000;

/** Whether any process of the group is still alive. */
function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

describe.skipIf(GIMP_SKIP !== undefined)("a pool of supervised GIMPs", () => {
  let pool: GimpHost[] = [];
  afterEach(async () => {
    await Promise.all(pool.map((h) => h.close()));
    pool = [];
  });

  async function startPool(editors: number): Promise<GimpHost[]> {
    pool = (await createEditorHosts({ editor: "gimp", editors, gimp: { binary: GIMP_BINARY }, sample: true, logger: silentLogger() })) as GimpHost[];
    await Promise.all(pool.map((h) => h.connect()));
    return pool;
  }

  it(
    "two GIMPs started at once get distinct ports, both connect, only the first gets the sample, and each keeps its own images",
    async () => {
      const [first, second] = (await startPool(2)) as [GimpHost, GimpHost];
      expect(first.endpoint!.port).not.toBe(second.endpoint!.port);
      expect(first.pid).not.toBe(second.pid);
      expect((await first.listDocuments(ctx)).map((d) => d.name)).toEqual(["Sample"]);
      expect(await second.listDocuments(ctx)).toEqual([]);

      const created = await second.createDocument!(ctx, { width: 40, height: 30, name: "Only in the second", background: [255, 255, 255, 255] });
      expect((await second.listDocuments(ctx)).map((d) => d.name)).toEqual(["Only in the second"]);
      expect((await first.listDocuments(ctx)).map((d) => d.name)).toEqual(["Sample"]);
      expect((await second.getDocument(ctx, undefined)).id).toBe(created.id);
      // GIMP ids are per process: the same number names nothing (or another image) in the first.
      const inFirst = await first.getDocument(ctx, created.id).catch((error: unknown) => error);
      expect(inFirst).not.toMatchObject({ name: "Only in the second" });

      const pids = [first.pid!, second.pid!];
      await Promise.all(pool.map((h) => h.close()));
      pool = [];
      expect(pids.map(groupAlive)).toEqual([false, false]);
    },
    POOL_TIMEOUT_MS,
  );

  it(
    "a GIMP whose picked port another Script-Fu server holds is started again on a port of its own",
    async () => {
      // The measured race: the second GIMP's bind fails, it keeps running, and the port answers for the first.
      const other = await sharedGimp();
      forced.push(other.port);
      const before = await exchange(other, "(car (gimp-image-list))");
      const [gimp] = (await startPool(1)) as [GimpHost];
      expect(gimp.endpoint!.port).not.toBe(other.port);
      expect((await gimp.listDocuments(ctx)).map((d) => d.name)).toEqual(["Sample"]);
      // The sample was built in our GIMP, not in the one that held the port.
      expect(await exchange(other, "(car (gimp-image-list))")).toEqual(before);
    },
    POOL_TIMEOUT_MS,
  );
});
