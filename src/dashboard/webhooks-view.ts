/*
 * The webhooks panel: each webhook from `GET /status` with its counters and state, the totals, and, for the one
 * webhook the user selects, its delivery log (`GET /webhooks/{id}/deliveries`) read with each status poll, newest
 * first. A disabled webhook gets an "enable" button while the dashboard may act (the page confirms and sends it). URLs
 * and errors come from users, so they are set as text only.
 */
import type { DeliveryLog, DeliveryRecord, WebhookStatus, WebhooksStatus } from "./api.js";
import { actButton } from "./acts.js";
import { el, type Elem } from "./dom.js";

/** The elements the panel draws into (all defined by index.html). */
export interface WebhooksElements {
  readonly totals: Elem;
  readonly none: Elem;
  readonly table: Elem;
  readonly rows: Elem;
  readonly log: Elem;
  readonly logTitle: Elem;
  readonly logError: Elem;
  readonly logRows: Elem;
}

function cell(text: string, className = ""): Elem {
  return el("td", className, text);
}

function stateOf(hook: WebhookStatus): { text: string; className: string } {
  if (!hook.enabled) return { text: `disabled: ${hook.disabledReason ?? "no reason given"}`, className: "state disabled" };
  if (hook.consecutiveFailures > 0) return { text: `enabled (${hook.consecutiveFailures} failed in a row)`, className: "state backoff" };
  return { text: "enabled", className: "state ready" };
}

function typesOf(hook: WebhookStatus): string {
  const types = hook.types.join(" ");
  return hook.documentId === undefined ? types : `${types} (document ${hook.documentId})`;
}

function deliveryRow(record: DeliveryRecord): Elem {
  const row = el(
    "tr",
    record.ok ? "" : "failed",
    cell(record.at),
    cell(record.type),
    cell(String(record.attempt), "num attempt"),
    cell(record.status === null ? "–" : String(record.status), `num status ${record.ok ? "ok" : "bad"}`),
    cell(String(record.durationMs), "num"),
    cell(record.error ?? "", "delivery-error"),
  );
  row.setAttribute("data-delivery", record.deliveryId);
  return row;
}

export class WebhooksView {
  private selected: string | undefined;
  private log: DeliveryLog | undefined;
  private logError = "";
  /** Bumped on every read and every selection: an answer to an older read is dropped. */
  private generation = 0;
  /** What was last drawn: an unchanged view is not redrawn (and a button is not replaced under the pointer). */
  private drawnHooks = "";
  private drawnLog = "";

  constructor(
    private readonly dom: WebhooksElements,
    private readonly read: (id: string) => Promise<DeliveryLog>,
    private readonly changed: () => void,
    /** Proposes enabling a disabled webhook; undefined while the dashboard may not act (no button is drawn). */
    private readonly enable: () => ((hook: WebhookStatus) => void) | undefined,
  ) {}

  /**
   * Reads the selected webhook's delivery log; reads nothing when none is selected. `hooks` is the latest status:
   * a selected webhook that is no longer listed is unselected.
   */
  async refresh(hooks: readonly WebhookStatus[] | undefined): Promise<void> {
    const id = this.selected;
    if (id === undefined) return;
    if (hooks !== undefined && !hooks.some((hook) => hook.id === id)) {
      this.select(undefined);
      return;
    }
    const generation = ++this.generation;
    try {
      const log = await this.read(id);
      if (generation !== this.generation) return;
      this.log = log;
      this.logError = "";
    } catch (error) {
      if (generation !== this.generation) return;
      this.logError = `cannot read the delivery log: ${(error as Error).message}`;
    }
    this.changed();
  }

  /** Shows `id`'s delivery log at once (or hides the log), without waiting for the next poll. */
  private select(id: string | undefined): void {
    this.selected = id;
    this.log = undefined;
    this.logError = "";
    this.generation++;
    this.changed();
    if (id !== undefined) void this.refresh(undefined);
  }

  render(webhooks: WebhooksStatus | undefined): void {
    const hooks = webhooks?.hooks ?? [];
    const key = JSON.stringify([webhooks, this.selected, this.enable() !== undefined]);
    if (key !== this.drawnHooks) {
      this.drawnHooks = key;
      this.dom.totals.textContent =
        webhooks === undefined || hooks.length === 0 ? "" : `${hooks.length} ${hooks.length === 1 ? "hook" : "hooks"} · delivered ${webhooks.delivered} · failed ${webhooks.failed} · dropped ${webhooks.dropped}`;
      this.dom.none.hidden = hooks.length > 0;
      this.dom.table.hidden = hooks.length === 0;
      this.dom.rows.replaceChildren(...hooks.map((hook) => this.hookRow(hook)));
    }
    this.renderLog();
  }

  private hookRow(hook: WebhookStatus): Elem {
    const state = stateOf(hook);
    const shown = hook.id === this.selected;
    const button = el("button", "", shown ? "hide log" : "deliveries");
    button.setAttribute("type", "button");
    button.setAttribute("aria-pressed", String(shown));
    button.title = shown ? "Hide this webhook's delivery log" : "Show this webhook's delivery log";
    button.addEventListener("click", () => this.select(shown ? undefined : hook.id));
    const row = el(
      "tr",
      `${hook.enabled ? "" : "degraded"}${shown ? " selected" : ""}`.trim(),
      cell(hook.url, "webhook-url"),
      cell(typesOf(hook)),
      cell(state.text, state.className),
      cell(String(hook.queued), "num queued"),
      cell(String(hook.delivered), "num delivered"),
      cell(String(hook.failedAttempts), "num failed"),
      cell(String(hook.dropped), "num dropped"),
      el("td", "", button, ...this.enableButton(hook)),
    );
    row.title = hook.url;
    row.setAttribute("data-webhook", hook.id);
    return row;
  }

  private enableButton(hook: WebhookStatus): Array<Elem | string> {
    const enable = this.enable();
    if (hook.enabled || enable === undefined) return [];
    return [" ", actButton("enable", "Enable this webhook again: what it queued is delivered, oldest first", () => enable(hook))];
  }

  private renderLog(): void {
    const key = JSON.stringify([this.selected, this.log, this.logError]);
    if (key === this.drawnLog) return;
    this.drawnLog = key;
    this.dom.log.hidden = this.selected === undefined;
    if (this.selected === undefined) {
      this.dom.logRows.replaceChildren();
      return;
    }
    this.dom.logTitle.textContent = this.log?.webhook.url ?? this.selected;
    this.dom.logError.textContent = this.logError;
    const deliveries = this.log?.deliveries ?? [];
    const rows = deliveries.map(deliveryRow).reverse();
    const note = el("td", "muted", this.log === undefined ? "reading…" : "no attempts yet");
    note.setAttribute("colspan", "6");
    const empty = el("tr", "", note);
    this.dom.logRows.replaceChildren(...(rows.length > 0 ? rows : [empty]));
  }
}
