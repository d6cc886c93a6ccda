import { Type, type Static } from '@sinclair/typebox';

export const HealthResponse = Type.Object({ status: Type.Literal('ok') }, { $id: 'HealthResponse' });

export const ReadinessResponse = Type.Object(
  {
    status: Type.Union([Type.Literal('ready'), Type.Literal('not-ready')]),
    failing: Type.Array(Type.Object({ check: Type.String(), reason: Type.String() }), { description: 'checks that failed: the service cannot serve' }),
    degraded: Type.Array(Type.Object({ check: Type.String(), reason: Type.String() }), {
      description: 'what works in a reduced mode and how (Redis unreachable, a leaderboard being rebuilt): the service still serves',
    }),
  },
  { $id: 'ReadinessResponse' },
);

export const VersionResponse = Type.Object(
  { name: Type.String(), version: Type.String(), commit: Type.String(), apiVersion: Type.String() },
  { $id: 'VersionResponse' },
);
export type VersionInfo = Static<typeof VersionResponse>;

export const ErrorResponse = Type.Object(
  {
    error: Type.Object({
      code: Type.String({ description: 'kebab-case error code' }),
      message: Type.String(),
      requestId: Type.String(),
    }),
  },
  { $id: 'ErrorResponse', description: 'The error envelope every non-2xx JSON response carries' },
);

/** Error responses for a route's schema, keyed by status, all the shared envelope. */
export function errorResponses(...statuses: number[]): Record<number, typeof ErrorResponse> {
  return Object.fromEntries(statuses.map((status) => [status, ErrorResponse]));
}
