/**
 * The editor's memory budget through the bridge, with the editor in its own process: the limit reaches the editor,
 * refusals arrive as PAYLOAD_TOO_LARGE over the wire, `/status` shows use against the budget as the editor reports
 * it, and a budget at or above the editor's memory cap is refused at start.
 */
import { describe, expect, it } from "vitest";
import { createBridge } from "../../../src/bridge/bridge.js";
import { editorMemoryDefaults, EDITOR_MIN_MEMORY_BYTES } from "../../../src/limits.js";
import { startBridge } from "../../helpers/bridge.js";

const MiB = 1024 * 1024;
const BUDGET = 64 * MiB;
/** 3000×3000 opaque: 36,000,000 bytes, so a second one does not fit in 64 MiB. */
const SIDE = 3000;

interface EditorStatus {
  memory?: { budgetBytes: number; usedBytes: number; documentBytes: number; documents: number };
}

async function editorMemory(http: (path: string) => Promise<Response>): Promise<EditorStatus["memory"]> {
  const status = (await (await http("/status")).json()) as { editors: EditorStatus[] };
  return status.editors[0]?.memory;
}

describe("editor memory budget through the bridge", () => {
  it("refuses a document that would not fit, shows use vs budget in /status, and gives the memory back on close", async () => {
    const harness = await startBridge({ limits: { editorMemoryBudgetBytes: BUDGET, editorMaxMemoryBytes: 1024 * MiB } });
    const client = await harness.connect();
    // The sample document is open: its pixels are charged from the start.
    const start = await editorMemory(harness.http);
    expect(start).toMatchObject({ budgetBytes: BUDGET, documents: 1 });
    expect(start!.usedBytes).toBeGreaterThan(0);
    const first = await client.send("document:create", { width: SIDE, height: SIDE });
    expect(first.error).toBeUndefined();
    const documentId = (first.result as { id: number }).id;
    expect(await editorMemory(harness.http)).toMatchObject({ documents: 2, usedBytes: start!.usedBytes + SIDE * SIDE * 4 });
    // The same figures in /metrics, per editor.
    const metrics = await (await harness.http("/metrics")).text();
    expect(metrics).toContain(`bridge_editor_memory_used_bytes{editor="embedded-1"} ${start!.usedBytes + SIDE * SIDE * 4}`);
    expect(metrics).toContain(`bridge_editor_memory_budget_bytes{editor="embedded-1"} ${BUDGET}`);
    const second = await client.send("document:create", { width: SIDE, height: SIDE });
    expect(second.error).toMatchObject({
      code: "PAYLOAD_TOO_LARGE",
      details: { limit: "editorMemoryBudgetBytes", bytes: SIDE * SIDE * 4, budgetBytes: BUDGET, usedBytes: start!.usedBytes + SIDE * SIDE * 4 },
    });
    expect((await client.send("document:close", { documentId })).ok).toBe(true);
    expect(await editorMemory(harness.http)).toMatchObject({ documents: 1, usedBytes: start!.usedBytes });
    expect((await client.send("document:create", { width: SIDE, height: SIDE })).error).toBeUndefined();
  });

  it("derives the budget from the editor's cap, and refuses a budget at or above the cap", async () => {
    const derived = editorMemoryDefaults(2, 2048 * MiB);
    expect(derived).toEqual({ maxMemoryBytes: 2048 * MiB, budgetBytes: 1536 * MiB });
    expect(editorMemoryDefaults(1000).maxMemoryBytes).toBe(EDITOR_MIN_MEMORY_BYTES);
    const harness = await startBridge({ limits: { editorMaxMemoryBytes: 2048 * MiB } });
    expect(harness.bridge.limits.editorMemoryBudgetBytes).toBe(1536 * MiB);
    expect(await editorMemory(harness.http)).toMatchObject({ budgetBytes: 1536 * MiB });
    expect(() => createBridge({ limits: { editorMaxMemoryBytes: 512 * MiB, editorMemoryBudgetBytes: 512 * MiB } })).toThrow(
      /editorMemoryBudgetBytes \(536870912\) must be below editorMaxMemoryBytes \(536870912\)/,
    );
  });
});
