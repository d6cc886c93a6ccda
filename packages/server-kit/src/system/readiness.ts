/** A named readiness check; it resolves when the dependency is usable and rejects otherwise. */
export type ReadinessCheck = () => Promise<void>;

/**
 * Says whether a dependency or feature works in a reduced mode: a sentence saying what it does
 * meanwhile, or undefined when it works fully. The service stays ready while degraded.
 */
export type DegradationCheck = () => Promise<string | undefined> | string | undefined;

/** A check that did not pass, or a degradation, with the reason. */
export interface ReadinessNote {
  check: string;
  reason: string;
}

/** What `/readyz` reports: checks that failed (not ready) and degradations (ready, with limits). */
export interface ReadinessReport {
  failing: ReadinessNote[];
  degraded: ReadinessNote[];
}

/** The checks `/readyz` runs; features add theirs (a rank engine still loading, for example). */
export class Readiness {
  readonly #checks = new Map<string, ReadinessCheck>();
  readonly #degradations = new Map<string, DegradationCheck>();

  register(name: string, check: ReadinessCheck): void {
    this.#checks.set(name, check);
  }

  /** Adds a degradation check: its sentence is listed under `degraded` while the service stays ready. */
  registerDegradation(name: string, check: DegradationCheck): void {
    this.#degradations.set(name, check);
  }

  /** The names of every registered check. */
  names(): string[] {
    return [...this.#checks.keys()];
  }

  /** Runs every check with a timeout; returns the names and reasons of those that failed. */
  async failures(timeoutMs: number): Promise<ReadinessNote[]> {
    return (await this.report(timeoutMs)).failing;
  }

  /** Runs every check and degradation check, each with a timeout. */
  async report(timeoutMs: number): Promise<ReadinessReport> {
    const [failing, degraded] = await Promise.all([
      Promise.all(
        [...this.#checks].map(async ([name, check]) => {
          try {
            await withTimeout(check(), timeoutMs);
            return undefined;
          } catch (error) {
            return { check: name, reason: reasonOf(error) };
          }
        }),
      ),
      Promise.all(
        [...this.#degradations].map(async ([name, check]) => {
          try {
            const reason = await withTimeout(Promise.resolve(check()), timeoutMs);
            return reason === undefined ? undefined : { check: name, reason };
          } catch (error) {
            return { check: name, reason: reasonOf(error) };
          }
        }),
      ),
    ]);
    const present = (note: ReadinessNote | undefined): note is ReadinessNote => note !== undefined;
    return { failing: failing.filter(present), degraded: degraded.filter(present) };
  }
}

function reasonOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

async function withTimeout<T>(work: Promise<T>, timeoutMs: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      work,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`timed out after ${timeoutMs} ms`)), timeoutMs);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}
