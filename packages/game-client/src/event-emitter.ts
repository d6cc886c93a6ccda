/** A minimal typed event emitter that works the same in browsers and Node. */
export class TypedEmitter<Events extends object> {
  readonly #listeners = new Map<keyof Events, Set<(event: never) => void>>();

  /** Subscribes; returns the function that unsubscribes. */
  on<Name extends keyof Events>(name: Name, listener: (event: Events[Name]) => void): () => void {
    let listeners = this.#listeners.get(name);
    if (!listeners) this.#listeners.set(name, (listeners = new Set()));
    listeners.add(listener as (event: never) => void);
    return () => listeners.delete(listener as (event: never) => void);
  }

  /** A listener that throws must not break the queue, so errors are reported, not propagated. */
  emit<Name extends keyof Events>(name: Name, event: Events[Name]): void {
    for (const listener of this.#listeners.get(name) ?? []) {
      try {
        (listener as (event: Events[Name]) => void)(event);
      } catch (error) {
        console.error(`game-client: a "${String(name)}" listener threw`, error);
      }
    }
  }
}
