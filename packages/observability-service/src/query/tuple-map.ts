/**
 * Values keyed by a tuple of values (a group's key columns), one `Map` level per position: a
 * lookup hashes the values themselves, where a key string built per row (thousands a request)
 * costs its concatenations and the hashing of the joined string.
 */
export class TupleMap<T> {
  readonly #root = new Map<unknown, unknown>();
  #size = 0;

  /** How many tuples have a value. */
  get size(): number {
    return this.#size;
  }

  /** The tuple's value, if it has one; `tuple` must have the length of every other tuple of the map. */
  get(tuple: readonly unknown[]): T | undefined {
    let level: unknown = this.#root;
    for (const value of tuple) {
      level = (level as Map<unknown, unknown>).get(value);
      if (level === undefined) return undefined;
    }
    return level as T;
  }

  /** Gives the tuple a value (a new one or in place of its old one). */
  set(tuple: readonly unknown[], value: T): void {
    let level = this.#root;
    for (let position = 0; position < tuple.length - 1; position++) {
      let next = level.get(tuple[position]) as Map<unknown, unknown> | undefined;
      if (next === undefined) level.set(tuple[position], (next = new Map()));
      level = next;
    }
    const last = tuple[tuple.length - 1];
    if (!level.has(last)) this.#size++;
    level.set(last, value);
  }
}
