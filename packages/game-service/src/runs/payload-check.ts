import { TypeCompiler, type TypeCheck } from '@sinclair/typebox/compiler';
import type { TSchema } from '@sinclair/typebox';
import { ApiError } from '@playstack/server-kit';
import type { AdapterType } from './adapters/adapter-type.js';

/** Deepest nesting of arrays and objects a payload may have; evidence needs little, and deep
 * nesting would only cost stack and time in the canonical serialization. */
export const maxPayloadDepth = 32;

const compiled = new WeakMap<TSchema, TypeCheck<TSchema>>();

function checkerFor(schema: TSchema): TypeCheck<TSchema> {
  let checker = compiled.get(schema);
  if (!checker) {
    checker = TypeCompiler.Compile(schema);
    compiled.set(schema, checker);
  }
  return checker;
}

/**
 * Checks a payload against its adapter type's schema before `derive` sees it. A payload of the
 * wrong shape is a malformed request (400 naming the field), not evidence to judge.
 */
export function assertPayloadShape(type: AdapterType, payload: unknown): void {
  const checker = checkerFor(type.payloadSchema);
  if (checker.Check(payload)) return;
  const first = checker.Errors(payload).First();
  const field = `body.payload${first ? first.path.replaceAll('/', '.') : ''}`;
  const reason = first ? first.message.charAt(0).toLowerCase() + first.message.slice(1) : 'is invalid';
  throw new ApiError('invalid-request', `${field} is invalid for adapter type ${type.id}: ${reason}`);
}

/** Refuses payloads nested deeper than `maxPayloadDepth` (400), without recursing itself. */
export function assertPayloadDepth(payload: unknown): void {
  const pending: Array<{ value: unknown; depth: number }> = [{ value: payload, depth: 1 }];
  while (pending.length > 0) {
    const { value, depth } = pending.pop()!;
    if (value === null || typeof value !== 'object') continue;
    if (depth > maxPayloadDepth) {
      throw new ApiError('invalid-request', `body.payload is nested more than ${maxPayloadDepth} levels deep`);
    }
    for (const child of Array.isArray(value) ? value : Object.values(value)) pending.push({ value: child, depth: depth + 1 });
  }
}
