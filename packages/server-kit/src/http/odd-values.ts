import type { FastifyRequest } from 'fastify';
import { ApiError } from '../errors/api-error.js';

/** A value the database cannot keep as sent, and where it is. */
export interface OddValue {
  /** JSON pointer of the value, `/a/0/b`. */
  path: string;
  message: string;
}

const maxDepth = 64;
const loneSurrogate = /\p{Cs}/u;

/**
 * The first value no store keeps faithfully: a string (or member name) with a NUL character
 * (PostgreSQL refuses it in text) or a lone UTF-16 surrogate (not encodable as UTF-8, so it would
 * be silently replaced), a number that is not finite or beyond ±2^53 (not exact in JavaScript,
 * and past 2^63 not storable in a 64-bit column; no API here needs more). Nesting past 64 levels is one too.
 */
export function findOddValue(value: unknown, path = '', depth = 0): OddValue | undefined {
  // Bytes (a body a route decodes itself, protobuf say) are the route's to check.
  if (ArrayBuffer.isView(value)) return undefined;
  switch (typeof value) {
    case 'string':
      return oddText(value, path, 'must not contain');
    case 'number':
      if (!Number.isFinite(value)) return { path, message: 'must be a finite number' };
      if (Math.abs(value) > Number.MAX_SAFE_INTEGER) return { path, message: 'must be between -9007199254740991 and 9007199254740991' };
      return undefined;
    case 'object': {
      if (value === null) return undefined;
      // Said of the outermost member holding it: the full path would be as deep as the nesting.
      if (depth >= maxDepth) return { path: path.split('/').slice(0, 2).join('/'), message: `is nested more than ${maxDepth} levels deep` };
      if (Array.isArray(value)) {
        for (let i = 0; i < value.length; i += 1) {
          const odd = findOddValue(value[i], `${path}/${i}`, depth + 1);
          if (odd) return odd;
        }
        return undefined;
      }
      for (const key in value) {
        const at = `${path}/${key.replaceAll('~', '~0').replaceAll('/', '~1')}`;
        const oddKey = oddText(key, at, 'must not have a member name containing');
        if (oddKey) return oddKey;
        const odd = findOddValue((value as Record<string, unknown>)[key], at, depth + 1);
        if (odd) return odd;
      }
      return undefined;
    }
    default:
      return undefined;
  }
}

function oddText(text: string, path: string, prefix: string): OddValue | undefined {
  if (text.includes('\0')) return { path, message: `${prefix} a NUL character (\\u0000)` };
  // In Unicode mode a surrogate pair is one code point: only a lone surrogate is category Cs.
  if (loneSurrogate.test(text)) return { path, message: `${prefix} a lone UTF-16 surrogate` };
  return undefined;
}

/** The 400 for the request's first odd value in its params, query string or parsed body, if any. */
export function oddRequestValue(request: FastifyRequest): ApiError | undefined {
  for (const [part, value] of [['params', request.params], ['querystring', request.query], ['body', request.body]] as const) {
    const odd = findOddValue(value);
    if (odd) {
      const field = odd.path.replace(/^\//, '').split('/').map((s) => s.replaceAll('~1', '/').replaceAll('~0', '~')).join('.');
      return new ApiError('invalid-request', `${field ? `${part}.${field}` : part} ${odd.message}`);
    }
  }
  return undefined;
}
