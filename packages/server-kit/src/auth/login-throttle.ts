import { ApiError } from '../errors/api-error.js';
import type { AttemptCounter } from './attempt-counter.js';
import { accountKey } from './trusted-device.js';

/** One failure count and how it slows the attempts it counts. */
export interface ThrottleLimit {
  /** Failures counted together within this window, which starts at the first. */
  windowMs: number;
  /** Failures before any delay: from this many on, each next attempt waits. */
  free: number;
  /** The longest wait: delays double from `firstDelayMs` up to this. */
  maxDelayMs: number;
}

export interface LoginThrottlePolicy {
  /** The first wait; each further failure doubles it, up to a limit's `maxDelayMs`. */
  firstDelayMs: number;
  /** Failures for one account from one untrusted address: guessing one account from one place. */
  accountAndAddress: ThrottleLimit;
  /** Failures from one untrusted address over all accounts: spraying many accounts. */
  address: ThrottleLimit;
  /** Failures for one account over all untrusted sources: distributed guessing. */
  account: ThrottleLimit;
  /** Failures of one trusted device (a browser that signed in to the account before). */
  device: ThrottleLimit;
}

const minute = 60_000;
const hour = 60 * minute;

/**
 * OWASP-style defaults: slowed, never locked. An untrusted source waits 1 s after its 5th failure
 * for an account, then 2, 4, 8 s ... up to 15 minutes between guesses; a trusted browser keeps a
 * budget of its own that nothing else spends.
 */
export const defaultLoginThrottlePolicy: LoginThrottlePolicy = Object.freeze({
  firstDelayMs: 1_000,
  accountAndAddress: { windowMs: hour, free: 5, maxDelayMs: 15 * minute },
  address: { windowMs: 24 * hour, free: 50, maxDelayMs: 15 * minute },
  account: { windowMs: 24 * hour, free: 10, maxDelayMs: 15 * minute },
  device: { windowMs: hour, free: 10, maxDelayMs: 15 * minute },
});

/** Who is signing in: the account, the client address, and the trusted device if the browser is one. */
export interface SignInSource {
  account: string;
  address: string;
  /** The id of a trusted-device cookie valid for this account (TrustedDevices.deviceOf). */
  device?: string | undefined;
}

/**
 * Throttles failed sign-ins without locking anyone out, as OWASP recommends. A trusted device
 * (a browser holding a device cookie for the account) is counted on its own: however many
 * failures come from elsewhere, it signs in at once. Untrusted sources are counted per account
 * and address, per address and per account; past each count's free allowance every further
 * attempt waits, the wait doubling with each failure up to a bound, and every count ends with
 * its window. A waiting attempt is refused (429 with Retry-After) without checking the password,
 * so an attacker's guesses are spent, not the real user's.
 *
 * One instance counts one kind of attempt: give password changes a throttle of their own (another
 * counter namespace), so they never spend the sign-in budget.
 */
export class LoginThrottle {
  readonly #counter: AttemptCounter;
  readonly #policy: LoginThrottlePolicy;

  constructor(counter: AttemptCounter, policy: LoginThrottlePolicy = defaultLoginThrottlePolicy) {
    this.#counter = counter;
    this.#policy = policy;
  }

  /** Throws 429 `rate-limited` (with Retry-After) while this source must wait before its next attempt. */
  async assertAllowed(source: SignInSource): Promise<void> {
    const gates = await Promise.all(this.#limits(source).map(([key]) => this.#counter.peek(gateKey(key))));
    const waitMs = Math.max(0, ...gates.map((gate) => (gate.count > 0 ? gate.remainingMs : 0)));
    if (waitMs > 0) {
      const retryAfterSeconds = Math.max(1, Math.ceil(waitMs / 1000));
      throw new ApiError('rate-limited', `Too many failed attempts; try again in ${retryAfterSeconds} seconds.`, {
        headers: { 'retry-after': String(retryAfterSeconds) },
      });
    }
  }

  /** Counts a failure, and makes the next attempt of each count past its allowance wait. */
  async recordFailure(source: SignInSource): Promise<void> {
    await Promise.all(
      this.#limits(source).map(async ([key, limit]) => {
        const { count } = await this.#counter.hit(key, limit.windowMs);
        if (count < limit.free) return;
        const delayMs = Math.min(limit.maxDelayMs, this.#policy.firstDelayMs * 2 ** Math.min(count - limit.free, 30));
        await this.#counter.hit(gateKey(key), delayMs);
      }),
    );
  }

  /** A correct password clears the counts that were this source's alone (not the account's or address's). */
  async recordSuccess(source: SignInSource): Promise<void> {
    const [own] = this.#limits(source);
    await Promise.all([this.#counter.reset(own![0]), this.#counter.reset(gateKey(own![0]))]);
  }

  #limits({ account, address, device }: SignInSource): Array<[key: string, limit: ThrottleLimit]> {
    // Hashed so counters (possibly in Redis) do not hold email addresses in the clear.
    const accountHash = accountKey(account);
    if (device) return [[`device:${accountHash}:${device}`, this.#policy.device]];
    return [
      [`account-address:${accountHash}:${address}`, this.#policy.accountAndAddress],
      [`address:${address}`, this.#policy.address],
      [`account:${accountHash}`, this.#policy.account],
    ];
  }
}

function gateKey(key: string): string {
  return `wait:${key}`;
}
