import { createHash } from 'node:crypto';
import { ApiError } from '../errors/api-error.js';
import type { AttemptCounter } from './attempt-counter.js';

export interface LoginThrottlePolicy {
  windowMs: number;
  /** Failures allowed for one account from one address: stops guessing one account from one place. */
  maxFailuresPerAccountAndAddress: number;
  /** Failures allowed from one address over all accounts: stops spraying many accounts. */
  maxFailuresPerAddress: number;
  /** Failures allowed for one account over all addresses: stops distributed guessing. */
  maxFailuresPerAccount: number;
}

/** OWASP-style defaults: a handful of tries per account and place, every block ending within 15 minutes. */
export const defaultLoginThrottlePolicy: LoginThrottlePolicy = Object.freeze({
  windowMs: 15 * 60_000,
  maxFailuresPerAccountAndAddress: 5,
  maxFailuresPerAddress: 50,
  maxFailuresPerAccount: 50,
});

/**
 * Throttles failed sign-ins per account, per address and per account-and-address. Every block is
 * a fixed window that ends on its own, so no one can lock an account out for good. From a single
 * address an attacker only exhausts their own account-and-address allowance (5): reaching the
 * account-wide one (50) takes many addresses, and even that block ends with its window.
 */
export class LoginThrottle {
  readonly #counter: AttemptCounter;
  readonly #policy: LoginThrottlePolicy;

  constructor(counter: AttemptCounter, policy: LoginThrottlePolicy = defaultLoginThrottlePolicy) {
    this.#counter = counter;
    this.#policy = policy;
  }

  /** Throws 429 `rate-limited` (with Retry-After) when this sign-in may not even be checked. */
  async assertAllowed(account: string, address: string): Promise<void> {
    const limits = this.#limits(account, address);
    const counts = await Promise.all(limits.map(([key]) => this.#counter.peek(key)));
    let blockedForMs = 0;
    counts.forEach((window, i) => {
      if (window.count >= limits[i]![1]) blockedForMs = Math.max(blockedForMs, window.remainingMs);
    });
    if (blockedForMs > 0) {
      const retryAfterSeconds = Math.max(1, Math.ceil(blockedForMs / 1000));
      throw new ApiError('rate-limited', `Too many failed sign-ins; try again in ${retryAfterSeconds} seconds.`, {
        headers: { 'retry-after': String(retryAfterSeconds) },
      });
    }
  }

  async recordFailure(account: string, address: string): Promise<void> {
    await Promise.all(this.#limits(account, address).map(([key]) => this.#counter.hit(key, this.#policy.windowMs)));
  }

  /** A correct password clears this account-and-address allowance (not the wider ones). */
  async recordSuccess(account: string, address: string): Promise<void> {
    await this.#counter.reset(this.#limits(account, address)[0]![0]);
  }

  #limits(account: string, address: string): Array<[key: string, max: number]> {
    // Hashed so counters (possibly in Redis) do not hold email addresses in the clear.
    const accountKey = createHash('sha256').update(account.toLowerCase(), 'utf8').digest('base64url');
    return [
      [`account-address:${accountKey}:${address}`, this.#policy.maxFailuresPerAccountAndAddress],
      [`address:${address}`, this.#policy.maxFailuresPerAddress],
      [`account:${accountKey}`, this.#policy.maxFailuresPerAccount],
    ];
  }
}
