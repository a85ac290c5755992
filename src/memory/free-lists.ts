/**
 * Freed buffers kept for reuse, by size class, under a bound on the bytes kept. Past the bound the
 * buffers freed longest ago go first, whatever their class. (Refusing the newly freed buffer
 * instead, as the pools once did, let a few large buffers that nothing asks for again fill the
 * bound for good: every later buffer was then made anew and dropped, each step of a loop paying
 * for allocation, and on a GPU for new bind groups and zeroing, 5-25x the step's time.)
 */
export class FreeLists<T> {
  private readonly lists = new Map<number, T[]>();
  /** Every kept buffer with its class, in the order they were freed (a Map keeps insertion order). */
  private readonly order = new Map<T, number>();
  private kept = 0;

  constructor(
    /** Bytes kept at most. */
    readonly maxBytes: number,
    /** Called with each buffer let go (evicted, or too large to keep). */
    private readonly drop: (buffer: T) => void,
  ) {}

  /** The most recently freed buffer of `size` bytes, if one is kept. */
  take(size: number): T | undefined {
    const buffer = this.lists.get(size)?.pop();
    if (buffer === undefined) return undefined;
    this.order.delete(buffer);
    this.kept -= size;
    return buffer;
  }

  /** Keeps `buffer` (of `size` bytes), letting the oldest kept buffers go while over the bound. */
  put(buffer: T, size: number): void {
    if (size > this.maxBytes) {
      this.drop(buffer);
      return;
    }
    let list = this.lists.get(size);
    if (!list) this.lists.set(size, (list = []));
    list.push(buffer);
    this.order.set(buffer, size);
    this.kept += size;
    while (this.kept > this.maxBytes) this.evictOldest();
  }

  /** Bytes kept. */
  get bytes(): number {
    return this.kept;
  }

  /** Lets every kept buffer go. */
  clear(): void {
    const all = [...this.order.keys()];
    this.lists.clear();
    this.order.clear();
    this.kept = 0;
    for (const b of all) this.drop(b);
  }

  private evictOldest(): void {
    const first = this.order.entries().next();
    if (first.done) return;
    const [buffer, size] = first.value;
    this.order.delete(buffer);
    // Within a class, buffers are pushed as freed and taken from the end: the oldest is first.
    const list = this.lists.get(size)!;
    const at = list.indexOf(buffer);
    list.splice(at, 1);
    if (list.length === 0) this.lists.delete(size);
    this.kept -= size;
    this.drop(buffer);
  }
}
