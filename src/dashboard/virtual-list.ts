/*
 * A list that creates elements only for the rows in view (plus a small margin), so 1,000 clients or 5,000 events
 * cost a few dozen elements. Rows have one fixed height; a spacer gives the scroll bar the full length.
 */
import { el, type Elem } from "./dom.js";

/** Rows rendered above and below the visible ones, so a small scroll shows no gap before the next render. */
const OVERSCAN_ROWS = 8;

export class VirtualList<T> {
  private items: readonly T[] = [];
  /** Rows at the last update: the caller may grow its array in place, so `items.length` can be ahead of the view. */
  private length = 0;
  private readonly spacer: Elem;
  private readonly window: Elem;
  private shown = "";

  /**
   * @param viewport a scrolling element with a fixed height
   * @param rowHeight every row's height in pixels (the CSS must agree)
   * @param renderRow builds one row's element
   */
  constructor(
    private readonly viewport: Elem,
    private readonly rowHeight: number,
    private readonly renderRow: (item: T, index: number) => Elem,
  ) {
    this.spacer = el("div", "vlist-spacer");
    this.window = el("div", "vlist-window");
    this.spacer.append(this.window);
    viewport.replaceChildren(this.spacer);
    viewport.addEventListener("scroll", () => this.draw(false), { passive: true });
  }

  /** Replaces the rows and redraws the visible part. */
  update(items: readonly T[]): void {
    this.items = items;
    this.length = items.length;
    this.draw(true);
  }

  /** Whether the last row is in view (a log then follows new rows; scrolled up, it stays where the reader is). */
  isAtEnd(): boolean {
    return this.viewport.scrollTop + this.viewport.clientHeight >= (this.length - 1) * this.rowHeight;
  }

  /** Scrolls to the last row. */
  scrollToEnd(): void {
    this.viewport.scrollTop = this.length * this.rowHeight;
  }

  private draw(changed: boolean): void {
    const height = this.viewport.clientHeight || this.rowHeight * 20;
    const first = Math.max(0, Math.floor(this.viewport.scrollTop / this.rowHeight) - OVERSCAN_ROWS);
    const last = Math.min(this.length, Math.ceil((this.viewport.scrollTop + height) / this.rowHeight) + OVERSCAN_ROWS);
    const key = `${first}:${last}`;
    // A scroll inside the already drawn rows needs nothing; new data always redraws.
    if (!changed && key === this.shown) return;
    this.shown = key;
    this.spacer.style.height = `${this.length * this.rowHeight}px`;
    this.window.style.transform = `translateY(${first * this.rowHeight}px)`;
    const rows: Elem[] = [];
    for (let i = first; i < last; i++) rows.push(this.renderRow(this.items[i]!, i));
    this.window.replaceChildren(...rows);
  }
}
