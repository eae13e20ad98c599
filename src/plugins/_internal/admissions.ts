import type { PluginDisconnectInfo, PluginHooks } from "../api.js";

/** Runs one lifecycle hook, bounded and contained; resolves whether it succeeded. */
export type HookRunner = (phase: string, hook: () => unknown) => Promise<boolean>;

/**
 * The clients of a plugin's endpoint that its `onConnect` admitted, and the hook runs their comings and goings
 * start: only an admitted client gets `onDisconnect`, a restart or reload runs `onConnect` again for each (with
 * `again`), and the runs nobody awaits (`onDisconnect`, those repeats) are kept so shutdown can wait for them.
 */
export class Admissions {
  private readonly admitted = new Set<string>();
  /** Hook runs not awaited by their trigger. */
  private readonly pending = new Set<Promise<unknown>>();

  constructor(
    private readonly endpoint: () => string,
    private readonly hooks: () => PluginHooks,
    private readonly runHook: HookRunner,
  ) {}

  /** Runs `onConnect` for a new client; resolves false when the hook failed (the client is then not admitted). */
  async admit(clientId: string): Promise<boolean> {
    const hooks = this.hooks();
    const hook = hooks.onConnect;
    if (hook !== undefined && !(await this.runHook("onConnect", () => hook.call(hooks, { clientId, endpoint: this.endpoint() })))) return false;
    this.admitted.add(clientId);
    return true;
  }

  /** Runs `onDisconnect` for a client that was admitted, in the background. */
  release(clientId: string, reason: PluginDisconnectInfo["reason"]): void {
    if (!this.admitted.delete(clientId)) return;
    const hooks = this.hooks();
    const hook = hooks.onDisconnect;
    if (hook === undefined) return;
    this.track(this.runHook("onDisconnect", () => hook.call(hooks, { clientId, endpoint: this.endpoint(), reason })));
  }

  /**
   * Runs `onConnect` again (`again` set) for the clients still connected, once a restart or a reload gave the plugin
   * fresh module state, so per-client state is rebuilt. A client whose hook fails now stays connected but is no
   * longer admitted (no `onDisconnect` for it); the failure is contained as any hook's.
   */
  readmit(again: "restart" | "reload"): void {
    const hooks = this.hooks();
    const hook = hooks.onConnect;
    if (hook === undefined) return;
    for (const clientId of this.admitted) {
      this.track(
        this.runHook("onConnect", () => hook.call(hooks, { clientId, endpoint: this.endpoint(), again })).then((ok) => {
          if (!ok) this.admitted.delete(clientId);
        }),
      );
    }
  }

  /** Takes over a replaced instance's admitted clients (hot reload), which it no longer holds. */
  takeOver(previous: Admissions): void {
    for (const clientId of previous.admitted) this.admitted.add(clientId);
    previous.admitted.clear();
  }

  /** Resolves once every hook run started so far has ended. */
  async settled(): Promise<void> {
    await Promise.all([...this.pending]);
  }

  private track(run: Promise<unknown>): void {
    this.pending.add(run);
    void run.finally(() => this.pending.delete(run));
  }
}
