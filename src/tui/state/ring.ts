// A fixed-capacity ring buffer for the event log: pushing is O(1), the oldest
// entries fall off, and a pane reads only the slice it shows. It never grows
// past its capacity.

export class Ring<T> {
  private readonly buf: (T | undefined)[];
  private start = 0;
  private len = 0;
  /** Bumped on every push, so a store can tell that the contents changed. */
  version = 0;

  constructor(readonly capacity: number) {
    if (!(capacity > 0)) throw new Error('ring capacity must be positive');
    this.buf = new Array<T | undefined>(capacity);
  }

  get size(): number {
    return this.len;
  }

  push(item: T): void {
    const end = (this.start + this.len) % this.capacity;
    this.buf[end] = item;
    if (this.len < this.capacity) this.len++;
    else this.start = (this.start + 1) % this.capacity;
    this.version++;
  }

  pushAll(items: readonly T[]): void {
    for (const it of items) this.push(it);
  }

  /** Item i, 0 = oldest kept. */
  at(i: number): T | undefined {
    if (i < 0 || i >= this.len) return undefined;
    return this.buf[(this.start + i) % this.capacity];
  }

  /** Items [from, to) in age order, clamped to what is kept. */
  slice(from: number, to: number): T[] {
    const a = Math.max(0, from);
    const b = Math.min(this.len, to);
    const out: T[] = [];
    for (let i = a; i < b; i++) out.push(this.buf[(this.start + i) % this.capacity] as T);
    return out;
  }

  /**
   * The `height` items that end `fromEnd` items before the newest: the
   * visible slice of a log scrolled up by `fromEnd` lines (0 = following).
   */
  window(height: number, fromEnd: number): T[] {
    const end = Math.max(0, this.len - Math.max(0, fromEnd));
    return this.slice(Math.max(0, end - height), end);
  }

  clear(): void {
    this.start = 0;
    this.len = 0;
    this.buf.fill(undefined);
    this.version++;
  }
}
