import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import type { TestProject } from "vitest/node";
import { GimpSupervisor } from "../../src/hosts/gimp/index.js";

declare module "vitest" {
  export interface ProvidedContext {
    /** Base URL of the run's GIMP broker (`test/helpers/gimp-broker.ts`). */
    gimpBroker: string;
  }
}

/**
 * vitest's global setup: one loopback HTTP server for the whole run that starts GIMPs on request and keeps them
 * running from one test file to the next. A GIMP start costs 5–10 s on a loaded two-core machine, and the
 * conformance matrix alone has fourteen files with a GIMP row and a GIMP ×2 row; each used to start its own pair.
 *
 * `GET /gimp?key=K` answers the Script-Fu endpoint (`{host, port}`) of GIMP `K`, started on first use and again
 * after it exited (a test that kills it gets a fresh one on the next request). Keys name a vitest worker and an
 * index (`test/hosts/gimp/_support.ts`), so the two workers never share a GIMP, and a file has its GIMPs to
 * itself as before. Nothing starts unless a file asks: `npm run test:quick` starts none. Every GIMP is stopped
 * (and its private profile removed) when the run ends.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const gimps = new Map<string, GimpSupervisor>();
  const binary = process.env["BRIDGE_GIMP_BINARY"] || "gimp-console-2.10";
  const server = createServer((request, response) => {
    const url = new URL(request.url ?? "/", "http://broker");
    const key = url.searchParams.get("key");
    if (url.pathname !== "/gimp" || key === null || key === "") {
      response.writeHead(404).end();
      return;
    }
    let gimp = gimps.get(key);
    if (gimp === undefined) {
      gimp = new GimpSupervisor({ binary });
      gimps.set(key, gimp);
    }
    gimp.start().then(
      (endpoint) => response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(endpoint)),
      (error: unknown) => response.writeHead(500, { "content-type": "text/plain" }).end(error instanceof Error ? error.message : String(error)),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  project.provide("gimpBroker", `http://127.0.0.1:${port}`);
  return async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await Promise.all([...gimps.values()].map((gimp) => gimp.stop()));
  };
}
