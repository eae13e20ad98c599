import { merge, Subject, type Observable } from "rxjs";
import type { Logger } from "../../logger.js";
import { BridgeError } from "../../protocol/index.js";
import type { EditorMemoryUse, EditorRecovery, HostCallContext, HostInfo } from "../host.js";
import type { RecoveredDocument, RecoveryOptions, RecoveryState } from "../embedded/recovery.js";
import { PendingCalls } from "./calls.js";
import { EditorProcess, type EditorProcessOptions } from "./editor-process.js";
import { EDITOR_CLOSE_GRACE_MS, EDITOR_HEARTBEAT_MS, EDITOR_START_TIMEOUT_MS } from "./limits.js";
import { EDITOR_RESTARTED_EVENT, fromWireError, type ChildMessage, type EditorInit, type EditorRestartedEvent } from "./protocol.js";
import { createRecoveryFolder, removeRecoveryFolder } from "./recovery-folder.js";
import { EventRelay } from "./relay.js";
import { resolveChildEntry } from "./spawn.js";

/** Everything a supervisor needs to start editor processes. */
export interface SupervisorSettings {
  /** The editor's options; `sample` and `open` apply to the first start only (not after a loss). */
  readonly init: Omit<EditorInit, "firstDocumentId" | "heartbeatMs" | "recovery" | "recover">;
  /** How the editor keeps recovery copies (the folder is the supervisor's own); none when absent. */
  readonly recovery: Omit<RecoveryOptions, "dir"> | undefined;
  readonly process: Omit<EditorProcessOptions, "entry">;
  readonly killGraceMs: number;
  /** Every event type the editor process can emit (`events()` answers `undefined` for others). */
  readonly eventTypes: ReadonlySet<string>;
  readonly logger: Logger | undefined;
}

const LOG_LEVELS = new Set(["trace", "debug", "info", "warn", "error", "fatal"]);

/** A lost process's documents, reported once a fresh process is ready. */
interface Loss {
  readonly reason: string;
  readonly ids: number[];
  /** What the lost process last said of each document's recovery copy. */
  readonly copies: Map<number, RecoveryState["documents"][number]>;
}

/**
 * Runs the embedded editor in a child process and restarts it after a loss: the state behind the isolated host.
 * `connect()` starts a fresh process whenever none is ready; when a process that was ready ends for any reason but
 * `close()`, its calls fail with `HOST_UNAVAILABLE` and `lost$` emits the cause. Once the next process is ready,
 * each document the lost one had open is reported by `closedDocument`, then `editor:restarted` says why. Document
 * ids continue past the lost process's, so none is ever reused.
 */
export class EditorSupervisor {
  readonly lost$: Observable<Error>;
  private readonly lostSubject = new Subject<Error>();
  private readonly closedDocuments = new Subject<{ documentId: number }>();
  private readonly restarted = new Subject<EditorRestartedEvent>();
  private readonly relay = new EventRelay((message) => {
    if (this.ready) this.editor?.send(message);
  });
  private readonly calls: PendingCalls;
  private editor: EditorProcess | undefined;
  /** The current process answered `ready` (and has not ended). */
  private ready = false;
  private hostVersion: string | undefined;
  private starting: Promise<HostInfo> | undefined;
  private startWaiter: { resolve(hostVersion: string | undefined): void; reject(error: Error): void } | undefined;
  private closing: Promise<void> | undefined;
  /** A process became ready since construction or the last `close()`: the sample and `open` are not made again. */
  private started = false;
  private openIds: number[] = [];
  private nextId = 1;
  private pendingLoss: Loss | undefined;
  private losses = 0;
  private memory: EditorMemoryUse | undefined;
  /** The private folder of recovery copies, made at the first start and removed by `close()`. */
  private recoveryDir: string | undefined;
  /** What the running process last said of its recovery copies. */
  private copies = new Map<number, RecoveryState["documents"][number]>();
  /** What the last restart brought back, until the pool takes it. */
  private recovery: EditorRecovery | undefined;

  constructor(private readonly settings: SupervisorSettings) {
    this.lost$ = this.lostSubject.asObservable();
    this.calls = new PendingCalls(settings.killGraceMs, this.heartbeatMs);
  }

  /** The editor's heartbeat: `EDITOR_HEARTBEAT_MS`, or a quarter of a shorter kill grace. */
  private get heartbeatMs(): number {
    return Math.max(10, Math.min(EDITOR_HEARTBEAT_MS, Math.floor(this.settings.killGraceMs / 4)));
  }

  get restarts(): number {
    return this.losses;
  }

  get pid(): number | undefined {
    return this.editor?.pid;
  }

  /** Open documents whose recovery copy holds their latest change, as the editor last reported. */
  get copiedDocumentIds(): number[] {
    return [...this.copies.values()].filter((doc) => doc.current).map((doc) => doc.id);
  }

  /** What the last restart brought back (the editor's own ids), once. */
  takeRecovery(): EditorRecovery | undefined {
    const recovery = this.recovery;
    this.recovery = undefined;
    return recovery;
  }

  /** The running process's memory budget and use as it last reported them; `undefined` while none is ready. */
  get memoryUse(): EditorMemoryUse | undefined {
    return this.ready ? this.memory : undefined;
  }

  connect(): Promise<HostInfo> {
    if (this.editor !== undefined && this.ready) return Promise.resolve({ hostVersion: this.hostVersion });
    this.starting ??= this.start().finally(() => {
      this.starting = undefined;
    });
    return this.starting;
  }

  close(): Promise<void> {
    this.closing ??= this.shutdown().finally(() => {
      this.closing = undefined;
    });
    return this.closing;
  }

  events(type: string): Observable<unknown> | undefined {
    if (type === EDITOR_RESTARTED_EVENT) return this.restarted.asObservable();
    if (!this.settings.eventTypes.has(type)) return undefined;
    const stream = this.relay.stream(type);
    return type === "closedDocument" ? merge(stream, this.closedDocuments) : stream;
  }

  /** One `HostAdapter` operation (or test hook), run in the editor process. */
  call(op: string, ctx: HostCallContext, args: unknown[]): Promise<unknown> {
    const editor = this.editor;
    if (editor === undefined || !this.ready) {
      return Promise.reject(new BridgeError("HOST_UNAVAILABLE", "The embedded editor's process is not running", { retryable: true }));
    }
    return this.calls.start(editor, op, ctx, args);
  }

  private async start(): Promise<HostInfo> {
    if (this.closing !== undefined) await this.closing;
    const entry = resolveChildEntry();
    const first = !this.started;
    if (this.settings.recovery !== undefined && this.recoveryDir === undefined) {
      try {
        this.recoveryDir = await createRecoveryFolder();
      } catch (error) {
        // No copies is the old behaviour (documents lost with the editor), not a reason to refuse to start.
        this.settings.logger?.warn({ actor: "editor", err: error instanceof Error ? error.message : String(error) }, "no recovery copies: folder not made");
      }
    }
    const recover = first ? undefined : this.pendingLoss?.ids;
    const editor: EditorProcess = new EditorProcess(
      { ...this.settings.process, entry },
      { message: (message) => this.onMessage(editor, message), exit: (reason) => this.onExit(editor, reason) },
    );
    this.editor = editor;
    const ready = new Promise<string | undefined>((resolve, reject) => {
      this.startWaiter = { resolve, reject };
    });
    const timer = setTimeout(() => editor.kill(`editor did not start within ${EDITOR_START_TIMEOUT_MS} ms`), EDITOR_START_TIMEOUT_MS);
    const { init } = this.settings;
    editor.send({
      kind: "init",
      options: {
        ...init,
        sample: first && init.sample,
        open: first ? init.open : undefined,
        firstDocumentId: this.nextId,
        heartbeatMs: this.heartbeatMs,
        recovery: this.recoveryDir === undefined || this.settings.recovery === undefined ? undefined : { ...this.settings.recovery, dir: this.recoveryDir },
        recover,
      },
    });
    try {
      this.hostVersion = await ready;
    } finally {
      clearTimeout(timer);
      this.startWaiter = undefined;
    }
    return { hostVersion: this.hostVersion };
  }

  private onMessage(editor: EditorProcess, message: ChildMessage): void {
    if (editor !== this.editor) return;
    switch (message.kind) {
      case "result":
        this.calls.settle(message);
        return;
      case "progress":
        this.calls.progress(message);
        return;
      case "event":
        this.relay.deliver(message.type, message.data);
        return;
      case "memory":
        this.memory = message.use;
        return;
      case "heartbeat":
        return; // counted by the process as it arrived
      case "recovery":
        this.copies = new Map(message.state.documents.map((doc) => [doc.id, doc]));
        return;
      case "documents":
        this.openIds = message.ids;
        this.nextId = Math.max(this.nextId, message.nextId);
        return;
      case "log":
        this.forwardLog(message);
        return;
      case "ready":
        this.onReady(message.hostVersion, message.recovered);
        return;
      case "failed":
        // The editor could not start (`open` unreadable…): this process is done, deliberately.
        this.editor = undefined;
        editor.kill("editor failed to start");
        this.startWaiter?.reject(fromWireError(message.error));
        return;
    }
  }

  private onReady(hostVersion: string | undefined, recovered: RecoveredDocument[] | undefined): void {
    this.ready = true;
    this.started = true;
    this.relay.resubscribe();
    const loss = this.pendingLoss;
    this.pendingLoss = undefined;
    if (loss !== undefined) {
      const back = new Set((recovered ?? []).filter((doc) => doc.recovered).map((doc) => doc.documentId));
      const documents = loss.ids.map((documentId): EditorRecovery["documents"][number] => {
        if (!back.has(documentId)) return { documentId, recovered: false, lost: ["document"] };
        const copy = loss.copies.get(documentId);
        const lost: Array<"changes" | "selection"> = [];
        if (copy?.current !== true) lost.push("changes");
        if (copy?.selection === true) lost.push("selection");
        return { documentId, recovered: true, lost };
      });
      const lostDocumentIds = loss.ids.filter((id) => !back.has(id));
      const recoveredDocumentIds = loss.ids.filter((id) => back.has(id));
      this.recovery = { documents };
      for (const documentId of lostDocumentIds) this.closedDocuments.next({ documentId });
      this.restarted.next({ reason: loss.reason, restarts: this.losses, lostDocumentIds, recoveredDocumentIds, documents });
      const notBack = (recovered ?? []).filter((doc) => !doc.recovered).map((doc) => ({ documentId: doc.documentId, reason: doc.reason }));
      this.settings.logger?.info(
        { actor: "editor", pid: this.pid, restarts: this.losses, lostDocumentIds, recoveredDocumentIds, notRecovered: notBack },
        "editor restarted",
      );
    }
    this.startWaiter?.resolve(hostVersion);
  }

  private onExit(editor: EditorProcess, reason: string): void {
    if (editor !== this.editor) return; // closed or given up on deliberately
    this.editor = undefined;
    this.memory = undefined;
    const wasReady = this.ready;
    this.ready = false;
    const unavailable = (): BridgeError =>
      new BridgeError("HOST_UNAVAILABLE", `The embedded editor's process ended: ${reason}`, { retryable: true, details: { reason } });
    this.calls.failAll(unavailable);
    if (!wasReady) {
      this.startWaiter?.reject(unavailable());
      return;
    }
    this.losses++;
    const copies = new Map([...(this.pendingLoss?.copies ?? []), ...this.copies]);
    this.pendingLoss = { reason, ids: [...(this.pendingLoss?.ids ?? []), ...this.openIds], copies };
    this.openIds = [];
    this.copies = new Map();
    this.settings.logger?.warn({ actor: "editor", reason, restarts: this.losses }, "editor process lost");
    this.lostSubject.next(new Error(reason));
  }

  private async shutdown(): Promise<void> {
    const editor = this.editor;
    this.editor = undefined;
    this.ready = false;
    this.started = false;
    this.pendingLoss = undefined;
    this.openIds = [];
    this.copies = new Map();
    this.recovery = undefined;
    this.calls.failAll(() => new BridgeError("HOST_UNAVAILABLE", "The embedded editor was closed", { retryable: true }));
    this.startWaiter?.reject(new BridgeError("HOST_UNAVAILABLE", "The embedded editor was closed while it started", { retryable: true }));
    await editor?.close(EDITOR_CLOSE_GRACE_MS);
    // Closed on purpose: the documents are closed too, and their copies of no more use.
    const dir = this.recoveryDir;
    this.recoveryDir = undefined;
    if (dir !== undefined) await removeRecoveryFolder(dir);
  }

  private forwardLog({ level, obj, msg }: Extract<ChildMessage, { kind: "log" }>): void {
    const logger = this.settings.logger;
    if (logger === undefined) return;
    const method = (LOG_LEVELS.has(level) ? level : "info") as "info";
    logger[method]({ ...obj, actor: "editor" }, msg);
  }
}
