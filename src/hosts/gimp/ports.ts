import { createServer } from "node:net";

/*
 * Script-Fu ports for the GIMPs this process supervises. The Script-Fu server never reports an OS-chosen port, so
 * the supervisor picks one (bind to port 0, read it, close) and hands it to GIMP. Between the close and GIMP's own
 * bind the OS may offer the same port again, to a second supervisor of a pool starting at the same moment: a port
 * stays claimed here from the pick until its GIMP exits, so no two GIMPs of this process are ever given one port.
 * Another process can still take it in that window; the supervisor checks that the server it reaches is its own.
 */

/** Ports picked for a GIMP of this process and not yet released. */
const claimed = new Set<number>();

/** How many picks may come back claimed before giving up; the OS would have to repeat itself that often. */
const MAX_PICKS = 32;

function pickPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** A free loopback port that no other GIMP of this process holds; release it with {@link releasePort}. */
export async function claimPort(): Promise<number> {
  for (let pick = 0; pick < MAX_PICKS; pick++) {
    const port = await pickPort();
    if (claimed.has(port)) continue;
    claimed.add(port);
    return port;
  }
  throw new Error(`no free loopback port after ${MAX_PICKS} picks`);
}

/** Gives a port back once the GIMP it was claimed for has exited (or never started). */
export function releasePort(port: number): void {
  claimed.delete(port);
}
