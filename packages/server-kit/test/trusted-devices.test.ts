import { describe, expect, it } from 'vitest';
import { ManualClock, TrustedDevices } from '../src/index.js';

const secret = Buffer.alloc(32, 1);
const devicesWith = (clock: ManualClock, secrets: Buffer[]) =>
  new TrustedDevices({ cookieName: 'device', path: '/login', secrets, purpose: 'test sign-in', lifetimeMs: 60_000, clock });

describe('trusted-device cookies', () => {
  it('name the device for the account they were issued for, and nothing else', () => {
    const clock = new ManualClock('2026-11-25T10:00:00.000Z');
    const devices = devicesWith(clock, [secret]);
    const cookie = devices.issue('Owner@example.com', 'device-id-0123456789');
    expect(devices.verify(cookie, 'owner@example.com')).toBe('device-id-0123456789');
    expect(devices.verify(cookie, 'someone-else@example.com')).toBeUndefined();
    const [id, expiry, mac] = cookie.split('.') as [string, string, string];
    expect(devices.verify(`other-device-0123456789.${expiry}.${mac}`, 'owner@example.com')).toBeUndefined();
    expect(devices.verify(`${id}.${(parseInt(expiry, 36) + 1).toString(36)}.${mac}`, 'owner@example.com')).toBeUndefined();
    expect(devices.verify(`${id}.${expiry}.${mac.slice(1)}A`, 'owner@example.com')).toBeUndefined();
    expect(devices.verify('garbage', 'owner@example.com')).toBeUndefined();
    expect(devices.verify('x'.repeat(5_000), 'owner@example.com')).toBeUndefined();
  });

  it('expire, and need the server secret: another secret (or another purpose) cannot forge them', () => {
    const clock = new ManualClock('2026-11-25T10:00:00.000Z');
    const devices = devicesWith(clock, [secret]);
    const cookie = devices.issue('owner@example.com', 'device-id-0123456789');
    expect(devicesWith(clock, [Buffer.alloc(32, 2)]).verify(cookie, 'owner@example.com')).toBeUndefined();
    const otherPurpose = new TrustedDevices({ cookieName: 'device', path: '/', secrets: [secret], purpose: 'another', lifetimeMs: 60_000, clock });
    expect(otherPurpose.verify(cookie, 'owner@example.com')).toBeUndefined();
    clock.advance(60_000);
    expect(devices.verify(cookie, 'owner@example.com')).toBeUndefined();
  });

  it('keep working after a rotation while the former secret is listed', () => {
    const clock = new ManualClock('2026-11-25T10:00:00.000Z');
    const cookie = devicesWith(clock, [secret]).issue('owner@example.com', 'device-id-0123456789');
    const rotated = devicesWith(clock, [Buffer.alloc(32, 3), secret]);
    expect(rotated.verify(cookie, 'owner@example.com')).toBe('device-id-0123456789');
    expect(rotated.issue('owner@example.com', 'device-id-0123456789')).not.toBe(cookie);
  });
});
