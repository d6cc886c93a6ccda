/** A named readiness check; it resolves when the dependency is usable and rejects otherwise. */
export type ReadinessCheck = () => Promise<void>;

/** The checks `/readyz` runs; features add theirs (a rank engine still loading, for example). */
export class Readiness {
  readonly #checks = new Map<string, ReadinessCheck>();

  register(name: string, check: ReadinessCheck): void {
    this.#checks.set(name, check);
  }

  /** The names of every registered check. */
  names(): string[] {
    return [...this.#checks.keys()];
  }

  /** Runs every check with a timeout; returns the names and reasons of those that failed. */
  async failures(timeoutMs: number): Promise<Array<{ check: string; reason: string }>> {
    const results = await Promise.all(
      [...this.#checks].map(async ([name, check]) => {
        let timer: NodeJS.Timeout | undefined;
        try {
          await Promise.race([
            check(),
            new Promise<never>((_, reject) => {
              timer = setTimeout(() => reject(new Error(`timed out after ${timeoutMs} ms`)), timeoutMs);
            }),
          ]);
          return undefined;
        } catch (error) {
          return { check: name, reason: error instanceof Error ? error.message : String(error) };
        } finally {
          clearTimeout(timer);
        }
      }),
    );
    return results.filter((r): r is { check: string; reason: string } => r !== undefined);
  }
}
