/*
 * The live event log: every event the dashboard's connections receive, newest last, filtered by type, with a
 * pause that freezes the view while events keep being recorded.
 */
import { el, type Elem, type InputElem } from "./dom.js";
import { VirtualList } from "./virtual-list.js";

/** Events kept; older ones are dropped (bounds the page's memory on a busy bridge). */
export const MAX_LOG_EVENTS = 5_000;
/** Characters of an event's data shown in its row. */
const SUMMARY_CHARS = 160;
/** Height of one row in pixels (matches `.log-row` in dashboard.css). */
const ROW_HEIGHT = 20;

export interface LoggedEvent {
  readonly at: number;
  readonly editorId: string;
  readonly type: string;
  readonly summary: string;
}

function summarize(data: unknown): string {
  let text: string;
  try {
    // Image data URIs are long and say nothing in a log line.
    text = JSON.stringify(data, (key, value: unknown) => (key === "data" && typeof value === "string" && value.startsWith("data:") ? `<${value.length} chars>` : value)) ?? "";
  } catch {
    text = String(data);
  }
  return text.length > SUMMARY_CHARS ? `${text.slice(0, SUMMARY_CHARS)}…` : text;
}

export class EventLog {
  private readonly events: LoggedEvent[] = [];
  private readonly hidden = new Set<string>();
  private readonly types = new Set<string>();
  private readonly list: VirtualList<LoggedEvent>;
  private paused = false;
  private dirty = false;

  constructor(
    viewport: Elem,
    private readonly filters: Elem,
    pauseButton: Elem,
    private readonly counter: Elem,
    private readonly changed: () => void,
  ) {
    this.list = new VirtualList<LoggedEvent>(viewport, ROW_HEIGHT, (event) =>
      el(
        "div",
        "log-row",
        el("span", "log-time", new Date(event.at).toISOString().slice(11, 23)),
        el("span", "log-editor", event.editorId),
        el("span", "log-type", event.type),
        el("span", "log-data", event.summary),
      ),
    );
    pauseButton.addEventListener("click", () => {
      this.paused = !this.paused;
      pauseButton.textContent = this.paused ? "Resume" : "Pause";
      pauseButton.setAttribute("aria-pressed", String(this.paused));
      this.markDirty();
    });
  }

  /** Records an event; the view follows at the next render unless paused. */
  add(editorId: string, type: string, data: unknown): void {
    this.events.push({ at: Date.now(), editorId, type, summary: summarize(data) });
    if (this.events.length > MAX_LOG_EVENTS) this.events.splice(0, this.events.length - MAX_LOG_EVENTS);
    if (!this.types.has(type)) {
      this.types.add(type);
      this.addFilter(type);
    }
    this.markDirty();
  }

  /** Draws the log if something changed since the last call. */
  render(): void {
    if (!this.dirty) return;
    this.dirty = false;
    const total = this.events.length;
    if (this.paused) {
      this.counter.textContent = `${total} events (paused)`;
      return;
    }
    const shown = this.hidden.size === 0 ? this.events : this.events.filter((event) => !this.hidden.has(event.type));
    this.counter.textContent = `${shown.length} of ${total} events`;
    const follow = this.list.isAtEnd();
    this.list.update(shown);
    if (follow) this.list.scrollToEnd();
  }

  private markDirty(): void {
    this.dirty = true;
    this.changed();
  }

  private addFilter(type: string): void {
    const box = el<InputElem>("input");
    box.setAttribute("type", "checkbox");
    box.checked = true;
    box.setAttribute("data-type", type);
    box.addEventListener("change", () => {
      if (box.checked) this.hidden.delete(type);
      else this.hidden.add(type);
      this.markDirty();
    });
    this.filters.append(el("label", "filter", box, type));
  }
}
