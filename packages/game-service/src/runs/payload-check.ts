import { TypeCompiler, type TypeCheck } from '@sinclair/typebox/compiler';
import type { TSchema } from '@sinclair/typebox';
import { ApiError } from '@playstack/server-kit';
import type { AdapterType } from './adapters/adapter-type.js';

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
