// Names for the request and response shapes the client uses, all derived from the generated
// OpenAPI types so they follow the service's schemas.
import type { components, paths } from './generated/game-service-api.js';

type GamePath<Suffix extends string> = `/v1/games/{gameId}${Suffix}`;
type Ok<Path extends keyof paths, Method extends keyof paths[Path]> = paths[Path][Method] extends { responses: { 200: infer Body } }
  ? Body
  : never;
type Query<Path extends keyof paths, Method extends keyof paths[Path]> = paths[Path][Method] extends { query: infer Q } ? Q : never;

/** Exchange and refresh answer with the same session. */
export type SessionResponse = Ok<GamePath<'/auth/exchange'>, 'post'>;
export type PlayerSummary = SessionResponse['player'];
export type RunAccepted = Ok<GamePath<'/runs/{adapterId}'>, 'post'>;
export type RunSubmission = paths[GamePath<'/runs/{adapterId}'>]['post']['requestBody'];
export type RunPayload = RunSubmission['payload'];
/**
 * A leaderboard read's query, with `players` as a list: given, the read is of a friends' board
 * (those players' entries and the caller's, ranked among themselves; up to 100 ids).
 */
type WithPlayers<Q> = Omit<Q, 'players'> & { players?: readonly string[] | undefined };
export type LeaderboardPage = Ok<GamePath<'/leaderboards/{boardId}'>, 'get'>;
export type LeaderboardPageQuery = WithPlayers<Query<GamePath<'/leaderboards/{boardId}'>, 'get'>>;
export type LeaderboardEntry = LeaderboardPage['entries'][number];
export type MyRank = Ok<GamePath<'/leaderboards/{boardId}/me'>, 'get'>;
export type MyRankQuery = WithPlayers<Query<GamePath<'/leaderboards/{boardId}/me'>, 'get'>>;
export type AroundMe = Ok<GamePath<'/leaderboards/{boardId}/around-me'>, 'get'>;
export type AroundMeQuery = WithPlayers<Query<GamePath<'/leaderboards/{boardId}/around-me'>, 'get'>>;
/** An event board that did not take a run, and why (`event-not-started`, `event-ended`, `event-full`). */
export type BoardRefusal = RunAccepted['notScored'][number];
/** Where an event period stands: `upcoming`, `live` or `ended` (final standings). */
export type EventState = NonNullable<LeaderboardPage['state']>;
export type PlayerDeleted = Ok<GamePath<'/player'>, 'delete'>;
export type ErrorResponse = components['schemas']['ErrorResponse'];
