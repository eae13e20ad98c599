import { describe, expect, it } from "vitest";
import { firstEditor, startBridge, untilEditor } from "../helpers/bridge.js";
import { connect } from "./_support.js";

describe("client SDK: cancel and progress", () => {
  it("aborting a sent request rejects ABORTED and cancels it on the bridge: the editor is free again, not restarted", async () => {
    const harness = await startBridge();
    const client = connect(harness.bridge.wsUrl);
    await client.ready();
    const abort = new AbortController();
    const looping = client.invoke("jsx:run", { script: "for(;;){}", timeoutMs: 60_000 }, { signal: abort.signal }).catch((error: unknown) => error);
    await untilEditor(harness, (view) => view.running === 1);
    abort.abort();
    expect(await looping).toMatchObject({ code: "ABORTED" });
    // Without the cancel the script would hold the editor for a minute; with it the editor stops and serves this.
    await untilEditor(harness, (view) => view.running === 0);
    expect(await client.invoke("document:create", { width: 3, height: 3 })).toMatchObject({ width: 3 });
    expect((await firstEditor(harness)).restarts).toBe(0);
  });

  it("onProgress receives the bridge's reports for that request, in order, before it resolves", async () => {
    const harness = await startBridge({ limits: { progressIntervalMs: 0 } });
    const client = connect(harness.bridge.wsUrl);
    await client.ready();
    const reports: Array<{ progress: number; total?: number; message?: string }> = [];
    let settled = false;
    const script = `progress(0.5, "half way"); 1`;
    const done = client.invoke("jsx:run", { script }, { onProgress: (report) => reports.push({ ...report, settledBefore: settled } as never) });
    await done;
    settled = true;
    expect(reports[0]).toMatchObject({ message: "half way" });
    expect(reports.every((report) => (report as { settledBefore?: boolean }).settledBefore === false)).toBe(true);
  });
});
