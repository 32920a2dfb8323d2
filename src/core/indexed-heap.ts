// An indexed binary min-heap: each item is told its position as it moves
// (`place`), so an item can be removed or re-keyed in O(log n) without a
// search. The admission index keeps its classes, workloads and deadlines in
// these.

export class Heap<T> {
  readonly a: T[] = [];

  constructor(
    private readonly before: (x: T, y: T) => boolean,
    private readonly place: (x: T, i: number) => void,
  ) {}

  get size(): number {
    return this.a.length;
  }

  peek(): T | undefined {
    return this.a[0];
  }

  push(x: T): void {
    this.a.push(x);
    this.place(x, this.a.length - 1);
    this.up(this.a.length - 1);
  }

  /** Remove the item at position i (one that `place` gave: always in range). */
  removeAt(i: number): void {
    const a = this.a;
    const gone = a[i]!;
    const last = a.pop()!;
    if (i < a.length) {
      a[i] = last;
      this.place(last, i);
      this.update(i);
    }
    this.place(gone, -1);
  }

  /** The item at i changed its key (either way). */
  update(i: number): void {
    if (!this.up(i)) this.down(i);
  }

  clear(): void {
    for (const x of this.a) this.place(x, -1);
    this.a.length = 0;
  }

  private up(i: number): boolean {
    const a = this.a;
    const x = a[i]!;
    const start = i;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      const p = a[parent]!;
      if (!this.before(x, p)) break;
      a[i] = p;
      this.place(p, i);
      i = parent;
    }
    if (i === start) return false;
    a[i] = x;
    this.place(x, i);
    return true;
  }

  private down(i: number): void {
    const a = this.a;
    const n = a.length;
    const x = a[i]!;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      const r = l + 1;
      const c = r < n && this.before(a[r]!, a[l]!) ? r : l;
      const y = a[c]!;
      if (!this.before(y, x)) break;
      a[i] = y;
      this.place(y, i);
      i = c;
    }
    a[i] = x;
    this.place(x, i);
  }
}
