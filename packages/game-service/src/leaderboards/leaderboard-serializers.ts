import type { FastifyReply } from 'fastify';
import fastJson from 'fast-json-stringify';
import { LeaderboardAroundMeResponse, LeaderboardMeResponse, LeaderboardPageResponse } from './leaderboard-schemas.js';

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

// fast-json-stringify checks `anyOf` branches with its own Ajv, which must know the format too.
const compile = (schema: object) => fastJson(withPlainEntryStrings(schema), { ajv: { formats: { unsafe: true } } });

const serializers = {
  page: compile(LeaderboardPageResponse),
  me: compile(LeaderboardMeResponse),
  aroundMe: compile(LeaderboardAroundMeResponse),
};

/** The serializer of a leaderboard route's 200 response. */
export function leaderboardSerializer(response: keyof typeof serializers): (value: unknown) => string {
  return serializers[response] as (value: unknown) => string;
}

/**
 * Has `reply` send its value with the route's 200 serializer. Fastify sets no content type for a
 * reply with its own serializer, so it is set here, as Fastify would for JSON.
 */
export function serializeWith(reply: FastifyReply, response: keyof typeof serializers): void {
  reply.type('application/json; charset=utf-8').serializer(serializers[response]);
}
