/** The client library games embed; see packages/game-client/README.md. */
export const clientVersion = '0.1.0';

export { createGameClient, GameClient, type GameClientOptions, type PendingRun } from './game-client.js';
export type { GameClientEvents, SignedOutReason } from './client-events.js';
export type { AuthorizationCodeSource, SignInResult } from './session-manager.js';
export type { FlushReport } from './run-flusher.js';
export type { ClientStorage, StorageChange } from './storage/client-storage.js';
export { createMemoryStorage } from './storage/memory-storage.js';
export { createWebStorage, type WebStorageLike } from './storage/web-storage.js';
export { GameServiceError, NetworkError, RunNotQueuedError, SignedOutError } from './errors.js';
export type { TraceContextOption } from './trace-context.js';
export { runIdPattern } from './run-id.js';
export type { BackoffOptions } from './retry-policy.js';
export type * from './api-types.js';
