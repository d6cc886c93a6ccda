import { createHash, createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Clock } from '../system/clock.js';
import { newOpaqueToken } from './opaque-token.js';
import { sessionCookieOptions } from './session-cookie.js';

export interface TrustedDevicesOptions {
  /** The cookie's name, e.g. `obs_device`. */
  cookieName: string;
  /** The cookie's path: only sign-in requests need it. */
  path: string;
  /**
   * Server secrets the cookie is signed with (the first) and verified with (all, so a rotated
   * secret's cookies keep working). Never the key itself: a key for this purpose is derived.
   */
  secrets: readonly Buffer[];
  /** Sets the derived keys of one use apart from another's with the same secret. */
  purpose: string;
  /** How long a browser stays trusted after its last successful sign-in. */
  lifetimeMs: number;
  clock: Clock;
}

/** Six months: a browser signed in with at least twice a year stays trusted. */
export const defaultTrustedDeviceLifetimeMs = 183 * 24 * 3_600_000;
const maxCookieLength = 200;
const deviceIdBytes = 16;

/** The account a device cookie is bound to, hashed (no email addresses in cookies or counters). */
export function accountKey(account: string): string {
  return createHash('sha256').update(account.toLowerCase(), 'utf8').digest('base64url');
}

/**
 * OWASP's device cookies: a browser that signed in to an account successfully gets a cookie
 * `<device id>.<expiry>.<HMAC>` bound to that account, signed with a key derived from a server
 * secret. At the next sign-in to the same account the cookie names the device, which then has a
 * failure budget of its own (see LoginThrottle), so failures from elsewhere never block it.
 * Nothing is stored: the signature proves the server issued the cookie for that account.
 */
export class TrustedDevices {
  readonly #o: TrustedDevicesOptions;
  readonly #keys: Buffer[];

  constructor(options: TrustedDevicesOptions) {
    if (options.secrets.length === 0) throw new Error('TrustedDevices needs at least one secret');
    this.#o = options;
    this.#keys = options.secrets.map((secret) => Buffer.from(hkdfSync('sha256', secret, Buffer.alloc(0), `playstack trusted device: ${options.purpose}`, 32)));
  }

  /** The device id of a valid, unexpired cookie issued for this account, else undefined. */
  deviceOf(request: FastifyRequest, account: string): string | undefined {
    const value = request.cookies[this.#o.cookieName];
    return value ? this.verify(value, account) : undefined;
  }

  /** After a successful sign-in: (re)issues the cookie, keeping the device id it had for this account. */
  trust(request: FastifyRequest, reply: FastifyReply, account: string): void {
    const deviceId = this.deviceOf(request, account) ?? newOpaqueToken(deviceIdBytes);
    const value = this.issue(account, deviceId);
    reply.setCookie(this.#o.cookieName, value, { ...sessionCookieOptions(request, Math.floor(this.#o.lifetimeMs / 1000)), path: this.#o.path, sameSite: 'strict' });
  }

  issue(account: string, deviceId: string): string {
    const expiresAt = (this.#o.clock.now() + this.#o.lifetimeMs).toString(36);
    return `${deviceId}.${expiresAt}.${this.#mac(this.#keys[0]!, account, deviceId, expiresAt)}`;
  }

  verify(value: string, account: string): string | undefined {
    if (value.length > maxCookieLength) return undefined;
    const parts = value.split('.');
    if (parts.length !== 3) return undefined;
    const [deviceId, expiresAt, mac] = parts as [string, string, string];
    if (!/^[A-Za-z0-9_-]{16,64}$/.test(deviceId) || !/^[0-9a-z]{1,12}$/.test(expiresAt)) return undefined;
    if (parseInt(expiresAt, 36) <= this.#o.clock.now()) return undefined;
    const presented = Buffer.from(mac, 'base64url');
    const valid = this.#keys.some((key) => {
      const expected = Buffer.from(this.#mac(key, account, deviceId, expiresAt), 'base64url');
      return expected.length === presented.length && timingSafeEqual(expected, presented);
    });
    return valid ? deviceId : undefined;
  }

  #mac(key: Buffer, account: string, deviceId: string, expiresAt: string): string {
    return createHmac('sha256', key).update(`${accountKey(account)}\0${deviceId}\0${expiresAt}`, 'utf8').digest('base64url');
  }
}
