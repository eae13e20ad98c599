import { describe, expect, it } from "vitest";
import type { ClientSocket } from "../../../src/actors/clients/port.js";
import { ClientRegistry } from "../../../src/actors/clients/registry.js";
import { resolveLimits } from "../../../src/limits.js";
import { silentLogger } from "../../../src/logger.js";
import { CLOSE_CODES } from "../../../src/protocol/index.js";

/** A socket that records how it was closed. */
function socket(): ClientSocket & { closed?: { code: number; reason: string } } {
  const made: ClientSocket & { closed?: { code: number; reason: string } } = {
    send: () => {},
    sendBinary: () => {},
    binary: false,
    bufferedAmount: 0,
    close: (code: number, reason: string) => {
      made.closed = { code, reason };
    },
  };
  return made;
}

/** A registry holding clients with these ids, each attached to its own socket. */
function registryOf(ids: string[]): { registry: ClientRegistry; sockets: Map<string, ReturnType<typeof socket>> } {
  const registry = new ClientRegistry(resolveLimits({}), silentLogger());
  const sockets = new Map<string, ReturnType<typeof socket>>();
  for (const id of ids) {
    // `adopt` takes the id as given (a cluster's resumed client), detached until a socket attaches.
    const client = registry.adopt(id, "root", undefined, undefined);
    const attached = socket();
    client.attach(attached);
    sockets.set(id, attached);
  }
  return { registry, sockets };
}

const A = "abcd0000-0000-4000-8000-000000000001";
const B = "abcd1111-0000-4000-8000-000000000002";
const C = "ffff2222-0000-4000-8000-000000000003";

describe("naming a client by the start of its id (server:disconnectClient)", () => {
  it("a prefix several ids start with is BAD_REQUEST with how many; one more digit names one client", () => {
    const { registry, sockets } = registryOf([A, B, C]);
    expect(() => registry.disconnect("abcd", false)).toThrow(expect.objectContaining({ code: "BAD_REQUEST", details: { clientIdPrefix: "abcd", matches: 2 } }));
    expect([...sockets.values()].every((s) => s.closed === undefined)).toBe(true);
    expect(registry.disconnect("ABCD1", false)).toMatchObject({ client: { idPrefix: "abcd1111", state: "attached" }, disconnected: true, evicted: false });
    expect(sockets.get(B)!.closed).toEqual({ code: CLOSE_CODES.DISCONNECTED, reason: "disconnected by an operator" });
    expect(sockets.get(A)!.closed).toBeUndefined();
    expect(registry.list().map((c) => [c.id, c.state])).toEqual([
      [A, "attached"],
      [B, "detached"],
      [C, "attached"],
    ]);
    registry.disposeAll();
  });

  it("evicting disposes the client whatever its state, and an evicted one is no longer found", () => {
    const { registry, sockets } = registryOf([A, C]);
    expect(registry.disconnect(C, true)).toMatchObject({ disconnected: true, evicted: true });
    expect(sockets.get(C)!.closed).toEqual({ code: CLOSE_CODES.EVICTED, reason: "evicted by an operator" });
    expect(registry.list().map((c) => c.id)).toEqual([A]);
    expect(() => registry.byPrefix("ffff")).toThrow(expect.objectContaining({ code: "NOT_FOUND" }));
    // Now "abcd" names one client only.
    expect(registry.byPrefix("abcd").id).toBe(A);
    registry.disposeAll();
  });
});
