/*
 * What the dashboard may change, decided in one place, and the confirm step every change goes through. An act (disconnect
 * or evict a client, reload a plugin, enable a webhook, run a call from the "try it" form) is offered only while
 * `actsAllowed` says so; the views ask `Acts.allowed` before drawing a button, and `Acts.propose` asks again before
 * anything is sent. Nothing is sent until the user confirms in the page's confirm bar (not `window.confirm`, which
 * blocks the page and its polling); what the bridge answered shows in the result line.
 */
import type { StatusView } from "./api.js";
import { el, type Elem } from "./dom.js";

/**
 * Whether this dashboard may act: once it reads `/status` with the full token (or from a bridge without one, which
 * lets every loopback caller do everything). A read token's tab acts on nothing, "try it" included: every act
 * control follows this answer.
 */
export function actsAllowed(status: StatusView | undefined): boolean {
  return status !== undefined && status.scope !== "read";
}

/** An act's button (`data-act` names the act); a click proposes it, nothing is sent yet. */
export function actButton(act: string, title: string, onClick: () => void): Elem {
  const button = el("button", "act", act);
  button.setAttribute("type", "button");
  button.setAttribute("data-act", act);
  button.title = title;
  button.addEventListener("click", onClick);
  return button;
}

/** The elements of the confirm bar and the result line (all defined by index.html). */
export interface ActsElements {
  /** The confirm bar: hidden while nothing waits for confirmation. */
  readonly confirm: Elem;
  readonly question: Elem;
  readonly yes: Elem;
  readonly no: Elem;
  /** What the last act did, or why it failed. */
  readonly result: Elem;
}

/** An act waiting for its confirmation. */
interface Pending {
  readonly question: string;
  /** Sends the act; resolves with what to tell the user. */
  readonly run: () => Promise<string>;
}

export class Acts {
  private pending: Pending | undefined;
  private running = false;
  private allowedNow = false;

  constructor(
    private readonly dom: ActsElements,
    /** After an act: read the bridge's state again at once rather than at the next poll. */
    private readonly done: () => void,
  ) {
    dom.yes.addEventListener("click", () => void this.confirmed());
    dom.no.addEventListener("click", () => this.cancel("cancelled"));
  }

  /** Whether act controls are shown now (see {@link actsAllowed}). */
  get allowed(): boolean {
    return this.allowedNow;
  }

  /** Follows each status read; a dashboard that may no longer act drops what waits for confirmation. */
  update(status: StatusView | undefined): void {
    this.allowedNow = actsAllowed(status);
    if (!this.allowedNow && this.pending !== undefined) this.cancel("");
  }

  /**
   * Asks the user to confirm `question`; `run` is sent only once they do. A second proposal replaces one that
   * still waits. Ignored when acts are not allowed.
   */
  propose(question: string, run: () => Promise<string>): void {
    if (!this.allowedNow || this.running) return;
    this.pending = { question, run };
    this.dom.question.textContent = question;
    this.dom.result.textContent = "";
    this.dom.confirm.hidden = false;
  }

  private cancel(message: string): void {
    this.pending = undefined;
    this.dom.confirm.hidden = true;
    this.dom.result.textContent = message;
    this.dom.result.className = "act-result muted";
  }

  private async confirmed(): Promise<void> {
    const pending = this.pending;
    if (pending === undefined || this.running || !this.allowedNow) return;
    this.pending = undefined;
    this.running = true;
    this.dom.confirm.hidden = true;
    this.dom.result.textContent = `${pending.question.replace(/\?$/, "")}…`;
    this.dom.result.className = "act-result muted";
    try {
      this.dom.result.textContent = await pending.run();
      this.dom.result.className = "act-result ok";
    } catch (error) {
      const coded = error as { code?: string; message?: string };
      this.dom.result.textContent = `failed: ${coded.code !== undefined ? `${coded.code}: ` : ""}${coded.message ?? String(error)}`;
      this.dom.result.className = "act-result error";
    } finally {
      this.running = false;
      this.done();
    }
  }
}
