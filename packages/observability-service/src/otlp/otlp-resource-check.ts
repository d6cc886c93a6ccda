import { ApiError } from '@playstack/server-kit';
import { InvalidEnvelopeError, type EnvelopeShell, type EnvelopeValidator } from '../ingest/envelope-validator.js';
import type { ProtocolResource } from '../ingest/protocol-types.js';

/** Validates (and truncates) a mapped OTLP resource with the envelope schema's resource rules. */
export function checkResource(validator: EnvelopeValidator, resource: ProtocolResource, now: number): EnvelopeShell {
  try {
    return validator.checkShell({ protocol: 1, sentAt: new Date(now).toISOString(), resource, occurrences: [] });
  } catch (error) {
    if (error instanceof InvalidEnvelopeError) throw new ApiError('invalid-request', `A resource cannot be mapped: ${error.message}.`);
    throw error;
  }
}
