import { Type } from '@sinclair/typebox';
import { describe, expect, it } from 'vitest';
import { commonConfigProperties, ConfigError, configSchema, Flag, loadConfig, Port } from '../src/index.js';

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
});
