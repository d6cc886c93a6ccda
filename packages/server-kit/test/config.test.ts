import { Type } from '@sinclair/typebox';
import { describe, expect, it } from 'vitest';
import { commonConfigProperties, ConfigError, configSchema, Flag, likelyTypos, loadConfig, Port, redactUrl } from '../src/index.js';

const schema = configSchema({
  ...commonConfigProperties,
  APP_PORT: Port(8080, 'port of the app'),
  APP_FLAG: Flag(false, 'a flag'),
  APP_LIMIT: Type.Integer({ minimum: 1, maximum: 10, default: 5, description: 'a bounded number' }),
});

describe('configuration from the environment', () => {
  it('applies defaults when variables are unset or empty', () => {
    const config = loadConfig(schema, { APP_PORT: '' });
    expect(config).toMatchObject({ APP_PORT: 8080, APP_FLAG: false, APP_LIMIT: 5, HOST: '127.0.0.1', DATA_DIR: './data', LOG_LEVEL: 'info' });
    expect(config.DATABASE_URL).toBeUndefined();
  });

  it('converts numbers and booleans', () => {
    const config = loadConfig(schema, { APP_PORT: '9000', APP_FLAG: '1', APP_LIMIT: '10' });
    expect(config).toMatchObject({ APP_PORT: 9000, APP_FLAG: true, APP_LIMIT: 10 });
    expect(loadConfig(schema, { APP_FLAG: 'true' }).APP_FLAG).toBe(true);
  });

  it('is frozen', () => {
    const config = loadConfig(schema, {});
    expect(Object.isFrozen(config)).toBe(true);
  });

  it.each([
    ['APP_PORT', 'abc'],
    ['APP_PORT', '70000'],
    ['APP_LIMIT', '11'],
    ['LOG_LEVEL', 'loud'],
    ['DATABASE_URL', 'mysql://x'],
    ['REDIS_URL', 'http://x'],
    ['DATABASE_SCHEMA', 'Robert; drop table'],
  ])('refuses %s=%s with one line naming the variable', (variable, value) => {
    let error: unknown;
    try {
      loadConfig(schema, { [variable]: value });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const message = (error as Error).message;
    expect(message.startsWith(variable)).toBe(true);
    expect(message).toContain(JSON.stringify(value));
    expect(message).not.toContain('\n');
  });

  it.each([
    ['LOG_LEVEL', 'loud', 'LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent; got "loud"'],
    ['SQLITE_SYNCHRONOUS', 'off', 'SQLITE_SYNCHRONOUS must be one of normal, full; got "off"'],
    ['LOG_FORMAT', 'text', 'LOG_FORMAT must be one of pretty, json; got "text"'],
    ['APP_PORT', '70000', 'APP_PORT must be a whole number from 0 to 65535; got "70000"'],
    ['APP_FLAG', 'yes', 'APP_FLAG must be true or false (or 1 or 0); got "yes"'],
    ['DATABASE_URL', 'mysql://x', 'DATABASE_URL must be a URL starting with postgres:// or postgresql://; got "mysql://x"'],
    ['REDIS_URL', 'http://x', 'REDIS_URL must be a URL starting with redis:// or rediss://; got "http://x"'],
  ])('says in words what %s accepts: %s', (variable, value, message) => {
    expect(() => loadConfig(schema, { [variable]: value })).toThrow(new ConfigError(message));
  });

  it('never echoes a secret, even an invalid one, nor the password of a URL', () => {
    expect(() => loadConfig(schema, { METRICS_TOKEN: 'hunter2' })).toThrow(new ConfigError('METRICS_TOKEN must be at least 8 characters; got 7 characters'));
    expect(() => loadConfig(schema, { DATABASE_URL: 'mysql://app:hunter2@db/app' })).toThrow(
      new ConfigError('DATABASE_URL must be a URL starting with postgres:// or postgresql://; got "mysql://app:***@db/app"'),
    );
  });
});

describe('unknown variables that look like typos', () => {
  const known = Object.keys(schema.properties);

  it('names the variable each was probably meant to be', () => {
    const env = { GAME_PROT: '1', APP_PROT: '1', PORT: '3000', REDIS_URI: 'redis://x', log_level: 'debug', DATABSE_URL: 'postgres://x', LOGLEVEL: 'info' };
    expect(likelyTypos(env, known)).toEqual([
      { variable: 'APP_PROT', meant: 'APP_PORT' },
      { variable: 'PORT', meant: 'APP_PORT' },
      { variable: 'REDIS_URI', meant: 'REDIS_URL' },
      { variable: 'log_level', meant: 'LOG_LEVEL' },
      { variable: 'DATABSE_URL', meant: 'DATABASE_URL' },
      { variable: 'LOGLEVEL', meant: 'LOG_LEVEL' },
    ]);
  });

  it('leaves alone the rest of an ordinary environment, and known variables', () => {
    const env = { PATH: '/usr/bin', HOME: '/root', HOSTNAME: 'vm', USER: 'root', TERM: 'xterm', LANG: 'C.UTF-8', PWD: '/', SHELL: '/bin/sh', NODE_ENV: 'production', OTEL_SERVICE_NAME: 'x', HOST: '0.0.0.0', APP_PORT: '1' };
    expect(likelyTypos(env, known)).toEqual([]);
  });
});

describe('URLs in messages', () => {
  it('masks the password and credential-like query parameters, and nothing else', () => {
    expect(redactUrl('postgres://app:hunter2@db:5432/app')).toBe('postgres://app:***@db:5432/app');
    expect(redactUrl('redis://:hunter2@cache:6379/0')).toBe('redis://:***@cache:6379/0');
    expect(redactUrl('postgres://db/app?sslmode=require&password=hunter2')).toBe('postgres://db/app?sslmode=require&password=***');
    expect(redactUrl('postgres://app@db/app')).toBe('postgres://app@db/app');
    expect(redactUrl('not a url')).toBe('not a url');
  });
});
