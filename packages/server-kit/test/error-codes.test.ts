import { describe, expect, it } from 'vitest';
import { ApiError, commonErrorStatusByCode, defineErrorCodes, errorStatusOf, isErrorCode, type ErrorCode } from '../src/index.js';

const widgetErrorCodes = defineErrorCodes({ 'widget-not-found': 404, 'widget-jammed': 503 });

declare module '../src/index.js' {
  interface ServiceErrorCodes extends Readonly<typeof widgetErrorCodes> {}
}

describe('error codes', () => {
  it('gives a service-declared code its status, beside the common ones', () => {
    expect(new ApiError('widget-not-found', 'No such widget.').statusCode).toBe(404);
    expect(errorStatusOf('widget-jammed')).toBe(503);
    expect(new ApiError('conflict', 'Taken.').statusCode).toBe(409);
    expect(isErrorCode('widget-jammed')).toBe(true);
    expect(isErrorCode('widget-missing')).toBe(false);
  });

  it('keeps each code to one status', () => {
    expect(() => defineErrorCodes({ 'widget-not-found': 410 })).toThrow(/defined already/);
    expect(() => defineErrorCodes({ conflict: 409 })).toThrow(/defined already/);
    expect(() => defineErrorCodes({ Widget_Broken: 500 })).toThrow(/kebab-case/);
    // Declaring the same code with the same status again (two features sharing it) is allowed.
    expect(defineErrorCodes({ 'widget-jammed': 503 })).toEqual({ 'widget-jammed': 503 });
  });

  it('refuses to build an error with a code nobody declared', () => {
    expect(() => new ApiError('widget-missing' as ErrorCode, 'Lost.')).toThrow(/unknown error code widget-missing/);
  });

  it('keeps only codes shared by both services in the common list', () => {
    expect(Object.keys(commonErrorStatusByCode)).not.toContain('game-not-found');
    expect(Object.keys(commonErrorStatusByCode)).not.toContain('trace-not-found');
  });
});
