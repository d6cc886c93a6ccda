import type { FastifySerializerCompiler } from 'fastify';
import fastJson from 'fast-json-stringify';

/**
 * The documented response schema with each entry's `playerId` and `achievedAt` marked as strings
 * JSON needs no escaping for (fast-json-stringify's `unsafe` format): player ids are the
 * service's own UUIDs and `achievedAt` is written by `isoTimestamp`, so neither can hold a quote,
 * a backslash or a control character. Escaping them character by character was half of the
 * time spent serializing an entry. Display names, which players choose, are escaped as before.
 * The schema is derived, not copied, so the two cannot drift apart.
 */
export function withPlainEntryStrings(schema: object): object {
  const copy = structuredClone(schema) as Record<string, unknown>;
  const visit = (node: unknown): void => {
    if (node === null || typeof node !== 'object') return;
    const properties = (node as { properties?: Record<string, Record<string, unknown>> }).properties;
    if (properties?.playerId && properties.achievedAt && properties.rank) {
      properties.playerId = { ...properties.playerId, format: 'unsafe' };
      properties.achievedAt = { ...properties.achievedAt, format: 'unsafe' };
    }
    for (const value of Object.values(node)) visit(value);
  };
  visit(copy);
  return copy;
}

/**
 * A response schema's serializer: fast-json-stringify, as Fastify's own, with entry strings that
 * need no escaping marked. Its Ajv (it checks `anyOf` branches with one) must know the format too.
 */
export function compileLeaderboardSerializer(schema: object): (value: unknown) => string {
  return fastJson(withPlainEntryStrings(schema), { ajv: { formats: { unsafe: true } } }) as (value: unknown) => string;
}

/**
 * The leaderboard routes' serializer compiler (their `serializerCompiler` option): the documented
 * schemas stay as they are for validation and OpenAPI; only the serializers are built this way.
 * Errors have no entries, so their serializers come out as Fastify's.
 */
export const leaderboardSerializerCompiler: FastifySerializerCompiler<unknown> = ({ schema }) => compileLeaderboardSerializer(schema as object);
