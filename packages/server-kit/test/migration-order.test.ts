import { describe, expect, it } from 'vitest';
import { migrationOrderProblems } from '../src/testing/index.js';

const frozen = ['2026-11-21-01-users', '2026-11-21-03-minutes', '2026-11-21-03-tiers'];

describe('the migration naming rule', () => {
  it('accepts frozen names followed by timestamped ones in order', () => {
    expect(migrationOrderProblems([...frozen, '20261127073000-accounts', '20261127073001-account-roles'], frozen)).toEqual([]);
  });

  it('refuses a new migration in the old date-and-number format', () => {
    expect(migrationOrderProblems([...frozen, '2026-11-21-04-keys'], frozen)).toEqual([
      '2026-11-21-04-keys is not named <YYYYMMDDHHMMSS>-<kebab-case-words> (UTC: date -u +%Y%m%d%H%M%S)',
    ]);
  });

  it('refuses two migrations with the same timestamp', () => {
    expect(migrationOrderProblems([...frozen, '20261127073000-accounts', '20261127073000-keys'], frozen)).toEqual([
      '20261127073000-keys shares its timestamp with 20261127073000-accounts',
    ]);
  });

  it('refuses a migration registered after a newer one', () => {
    expect(migrationOrderProblems([...frozen, '20261127073000-accounts', '20261126120000-keys'], frozen)).toEqual([
      '20261126120000-keys is registered after 20261127073000-accounts but is older: keep the registry in timestamp order (rename an unreleased migration that landed late)',
    ]);
  });

  it('refuses a timestamp that is no real date and time', () => {
    expect(migrationOrderProblems([...frozen, '20260230120000-keys', '20261127250000-roles'], frozen)).toEqual([
      '20260230120000-keys starts with 20260230120000, which is not a real UTC date and time',
      '20261127250000-roles starts with 20261127250000, which is not a real UTC date and time',
    ]);
  });

  it('refuses names that are not kebab-case words after the timestamp', () => {
    expect(migrationOrderProblems([...frozen, '20261127073000_Accounts', '20261127073001-'], frozen)).toHaveLength(2);
  });

  it('refuses a frozen migration renamed, removed or moved', () => {
    expect(migrationOrderProblems(['2026-11-21-01-users', '2026-11-21-03-tiers', '2026-11-21-03-minutes'], frozen)).toEqual([
      'frozen migration 2026-11-21-03-minutes must stay registered at position 2 (found 2026-11-21-03-tiers)',
      'frozen migration 2026-11-21-03-tiers must stay registered at position 3 (found 2026-11-21-03-minutes)',
    ]);
    expect(migrationOrderProblems(['2026-11-21-01-users', '2026-11-21-03-minutes'], frozen)).toEqual([
      'frozen migration 2026-11-21-03-tiers must stay registered at position 3 (found nothing)',
    ]);
  });

  it('sorts every timestamped name after every frozen one, as Kysely orders them', () => {
    const names = ['2026-12-31-99-last-of-the-old-format', '20260101000000-first-of-the-new'];
    expect([...names].sort()).toEqual(names);
    expect(migrationOrderProblems(names, names.slice(0, 1))).toEqual([]);
  });
});
