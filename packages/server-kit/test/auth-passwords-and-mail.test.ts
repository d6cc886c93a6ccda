import net from 'node:net';
import argon2 from 'argon2';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fakeSmtpServer } from '../src/testing/index.js';
import { createMailer, hashPassword, passwordNeedsRehash, verifyPassword, verifyPasswordAgainstNothing } from '../src/index.js';

describe('password hashing', () => {
  it('hashes with argon2id at the OWASP parameters (19 MiB, 2 passes, 1 lane) and a fresh salt', async () => {
    const first = await hashPassword('correct horse battery staple');
    const second = await hashPassword('correct horse battery staple');
    expect(first).toMatch(/^\$argon2id\$v=19\$m=19456,p=1,t=2\$/);
    expect(second).not.toBe(first);
    expect(first).not.toContain('correct horse');
  });

  it('verifies the right password and refuses a wrong one or a malformed hash', async () => {
    const hash = await hashPassword('correct horse battery staple');
    expect(await verifyPassword(hash, 'correct horse battery staple')).toBe(true);
    expect(await verifyPassword(hash, 'correct horse battery stapler')).toBe(false);
    expect(await verifyPassword('not a hash', 'anything')).toBe(false);
    expect(await verifyPasswordAgainstNothing('anything')).toBe(false);
  });

  it('asks for a rehash of hashes made with weaker parameters', async () => {
    const weak = await argon2.hash('password password', { type: argon2.argon2id, memoryCost: 4096, timeCost: 1, parallelism: 1 });
    expect(passwordNeedsRehash(weak)).toBe(true);
    expect(passwordNeedsRehash(await hashPassword('password password'))).toBe(false);
  });
});

describe('mailer', () => {
  const smtp = fakeSmtpServer();
  let port = 0;
  beforeAll(async () => {
    await new Promise<void>((resolve) => smtp.server.listen(0, '127.0.0.1', resolve));
    port = (smtp.server.address() as net.AddressInfo).port;
  });
  afterAll(async () => {
    await new Promise((resolve) => smtp.server.close(resolve));
  });

  it('sends through SMTP when SMTP_URL is configured', async () => {
    const mailer = createMailer({ smtpUrl: `smtp://127.0.0.1:${port}`, from: 'Dashboards <ops@example.com>', logger: pino({ level: 'silent' }) });
    expect(mailer.delivery).toBe('smtp');
    await mailer.send({ to: 'user@example.com', subject: 'Reset your password', text: 'Reset token: abc123' });
    await mailer.close();
    expect(smtp.messages).toHaveLength(1);
    expect(smtp.messages[0]!.from).toContain('ops@example.com');
    expect(smtp.messages[0]!.to).toEqual([expect.stringContaining('user@example.com')]);
    expect(smtp.messages[0]!.data).toContain('Subject: Reset your password');
    expect(smtp.messages[0]!.data).toContain('Reset token: abc123');
  });

  it('fails the send when the SMTP server is unreachable', async () => {
    const closed = net.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const deadPort = (closed.address() as net.AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const mailer = createMailer({ smtpUrl: `smtp://127.0.0.1:${deadPort}`, from: 'ops@example.com', logger: pino({ level: 'silent' }) });
    await expect(mailer.send({ to: 'user@example.com', subject: 's', text: 't' })).rejects.toThrow();
    await mailer.close();
  });

  it('writes the message to the log when no SMTP server is configured, for an operator to pass on', async () => {
    const lines: string[] = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => lines.push(line) });
    const mailer = createMailer({ smtpUrl: undefined, from: 'ops@example.com', logger });
    expect(mailer.delivery).toBe('log');
    await mailer.send({ to: 'user@example.com', subject: 'Reset your password', text: 'Reset token: abc123' });
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({ mail: { to: 'user@example.com', subject: 'Reset your password', text: 'Reset token: abc123' } });
  });
});
