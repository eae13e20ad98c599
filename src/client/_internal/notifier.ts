type Fn = (data: unknown) => void;

/** Listeners of the local `$`-notifications; they never touch the wire. */
export class LocalNotifier {
  private readonly listeners = new Map<string, Array<{ fn: Fn; once: boolean }>>();

  add(type: string, fn: Fn, once: boolean): void {
    const list = this.listeners.get(type);
    if (list === undefined) this.listeners.set(type, [{ fn, once }]);
    else list.push({ fn, once });
  }

  /** Removes one registration of `fn`. */
  remove(type: string, fn: Fn): void {
    const list = this.listeners.get(type);
    const index = list?.findIndex((e) => e.fn === fn) ?? -1;
    if (list !== undefined && index !== -1) list.splice(index, 1);
  }

  has(type: string): boolean {
    return (this.listeners.get(type)?.length ?? 0) > 0;
  }

  /** Calls every listener of `type`; one that throws does not stop the others. */
  emit(type: string, data: unknown, onError: (error: unknown) => void): void {
    const list = this.listeners.get(type);
    if (list === undefined) return;
    for (const entry of list.slice()) {
      if (entry.once) this.remove(type, entry.fn);
      try {
        entry.fn(data);
      } catch (error) {
        onError(error);
      }
    }
  }
}
