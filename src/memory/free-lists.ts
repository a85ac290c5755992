/**
 * Freed buffers kept for reuse, by size class, under a bound on the bytes kept. Past the bound the
 * buffers freed longest ago go first, whatever their class. (Refusing the newly freed buffer
 * instead, as the pools once did, let a few large buffers that nothing asks for again fill the
 * bound for good: every later buffer was then made anew and dropped, each step of a loop paying
 * for allocation, and on a GPU for new bind groups and zeroing, 5-25x the step's time.)
 *
 * Constant time per buffer put or taken (amortised), also for millions of small buffers: arrays
 * used as queues, each with a head index, where `shift` would copy a large array every time.
 */

/** An array read from both ends: pushed and popped at the back, shifted at the front. */
class Deque<T> {
  private items: Array<T | undefined> = [];
  private head = 0;

  get length(): number {
    return this.items.length - this.head;
  }

  push(item: T): void {
    this.items.push(item);
  }

  pop(): T | undefined {
    if (this.length === 0) return undefined;
    return this.items.pop();
  }

  peek(): T | undefined {
    return this.length === 0 ? undefined : this.items[this.head];
  }

  shift(): T | undefined {
    if (this.length === 0) return undefined;
    const item = this.items[this.head];
    this.items[this.head++] = undefined;
    // The passed part is dropped once it is half the array.
    if (this.head > 1024 && 2 * this.head > this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    return item;
  }

  /** Removes `item` wherever it is (linear: the rare case). */
  remove(item: T): void {
    const at = this.items.indexOf(item, this.head);
    if (at >= 0) this.items.splice(at, 1);
  }

  /** Keeps only the items `keep` accepts, in order. */
  retain(keep: (item: T) => boolean): void {
    const kept: T[] = [];
    for (let i = this.head; i < this.items.length; i++) {
      const item = this.items[i];
      if (item !== undefined && keep(item)) kept.push(item);
    }
    this.items = kept;
    this.head = 0;
  }
}

/** A kept buffer's place in the order of freeing; `live` false once taken or let go. */
interface Entry<T> {
  readonly buffer: T;
  readonly size: number;
  live: boolean;
}

export class FreeLists<T> {
  /** Kept buffers by size class, in the order freed (the oldest first). */
  private readonly lists = new Map<number, Deque<T>>();
  /** Every buffer put, in the order freed; taken ones stay as dead entries until passed or dropped. */
  private readonly queue = new Deque<Entry<T>>();
  /** The live entry of each kept buffer. */
  private readonly entries = new Map<T, Entry<T>>();
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
    const entry = this.entries.get(buffer);
    if (entry) entry.live = false;
    this.entries.delete(buffer);
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
    if (!list) this.lists.set(size, (list = new Deque<T>()));
    list.push(buffer);
    // Taken buffers leave dead entries behind (a loop under the bound takes what it puts): dropped
    // once they outnumber the kept ones, so the queue stays within about twice the kept buffers.
    if (this.queue.length > 2 * this.entries.size + 1024) this.queue.retain((e) => e.live);
    const entry: Entry<T> = { buffer, size, live: true };
    this.queue.push(entry);
    this.entries.set(buffer, entry);
    this.kept += size;
    while (this.kept > this.maxBytes) this.evictOldest();
  }

  /** Bytes kept. */
  get bytes(): number {
    return this.kept;
  }

  /** Lets every kept buffer go. */
  clear(): void {
    const all = [...this.entries.keys()];
    this.lists.clear();
    this.entries.clear();
    this.queue.retain(() => false);
    this.kept = 0;
    for (const b of all) this.drop(b);
  }

  private evictOldest(): void {
    // Each dead entry is passed once.
    let entry = this.queue.shift();
    while (entry && !entry.live) entry = this.queue.shift();
    if (!entry) return;
    entry.live = false;
    this.entries.delete(entry.buffer);
    // Within a class, buffers are pushed as freed and taken from the back: the oldest overall is
    // its class's first.
    const list = this.lists.get(entry.size);
    if (list?.peek() === entry.buffer) list.shift();
    else list?.remove(entry.buffer);
    if (list?.length === 0) this.lists.delete(entry.size);
    this.kept -= entry.size;
    this.drop(entry.buffer);
  }
}
