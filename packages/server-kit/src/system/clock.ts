/** The time source features use, so tests can move time (period rollovers, expiry). */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/** A clock tests set by hand. */
export class ManualClock implements Clock {
  #now: number;
  constructor(start: number | string | Date) {
    this.#now = new Date(start).getTime();
  }
  now(): number {
    return this.#now;
  }
  set(time: number | string | Date): void {
    this.#now = new Date(time).getTime();
  }
  advance(ms: number): void {
    this.#now += ms;
  }
}
