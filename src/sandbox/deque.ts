/**
 * A double-ended queue on a growable ring buffer: O(1) push at the back,
 * shift at the front and read by position. The order store keeps records
 * oldest-first in it, so page n of "newest first" costs O(page_size).
 */
export class Deque<T> {
  #items: (T | undefined)[] = new Array(16);
  #head = 0;
  #length = 0;

  /** Number of items held. */
  get length(): number {
    return this.#length;
  }

  /** Adds an item after the newest one. */
  push(item: T): void {
    if (this.#length === this.#items.length) this.#grow();
    this.#items[(this.#head + this.#length) % this.#items.length] = item;
    this.#length++;
  }

  /** Removes and returns the oldest item. */
  shift(): T | undefined {
    if (this.#length === 0) return undefined;
    const item = this.#items[this.#head];
    this.#items[this.#head] = undefined;
    this.#head = (this.#head + 1) % this.#items.length;
    this.#length--;
    return item;
  }

  /** The item at `index` counted from the oldest (0); undefined outside. */
  at(index: number): T | undefined {
    if (index < 0 || index >= this.#length) return undefined;
    return this.#items[(this.#head + index) % this.#items.length];
  }

  /** Up to `limit` items, newest first, after skipping the `skip` newest. */
  newestFirst(skip: number, limit: number): T[] {
    const slice: T[] = [];
    const newest = this.#length - 1 - skip;
    for (let index = newest; index >= 0 && slice.length < limit; index--) {
      slice.push(this.at(index) as T);
    }
    return slice;
  }

  #grow(): void {
    const grown: (T | undefined)[] = new Array(this.#items.length * 2);
    for (let index = 0; index < this.#length; index++) {
      grown[index] = this.#items[(this.#head + index) % this.#items.length];
    }
    this.#items = grown;
    this.#head = 0;
  }
}
