import { describe, expect, it } from "vitest";
import type { ServerInfo } from "../../src/protocol/index.js";
import { startOnSharedEditor } from "../helpers/shared-editor.js";

/*
 * `getServerInfo` keeps its answer while nothing in it changes: what changes must still show at once, in the
 * answer and in the JSON text the WebSocket response is written from.
 */
describe("getServerInfo's kept answer", () => {
  it("shows a new client, a new document and a closed one on the next call, and the same answer between changes", async () => {
    const harness = await startOnSharedEditor();
    const a = await harness.connect();
    // The bridge counts the documents it knows of: listing them first makes the sample one of them.
    const open = await a.call<unknown[]>("document:list");
    const first = await a.call<ServerInfo>("getServerInfo");
    const again = await a.call<ServerInfo>("getServerInfo");
    expect(again).toEqual(first);
    const before = first.editors![0]!;

    const b = await harness.connect();
    const withB = await a.call<ServerInfo>("getServerInfo");
    expect(withB.editors![0]!.clients).toBe(before.clients + 1);

    const created = await b.call<{ id: number }>("document:create", { width: 32, height: 32 });
    const withDocument = await a.call<ServerInfo>("getServerInfo");
    expect(before.documents).toBe(open.length);
    expect(withDocument.editors![0]!.documents).toBe(open.length + 1);

    await b.call("document:close", { documentId: created.id });
    const after = await a.call<ServerInfo>("getServerInfo");
    expect(after.editors![0]!.documents).toBe(before.documents);
    // Everything else is what the first answer said: name, versions, capabilities, plugins, roots.
    expect({ ...after, editors: undefined }).toEqual({ ...first, editors: undefined });
    expect(after.editors![0]!.edits).toEqual(before.edits);
  });
});
