/** The client library games embed; see packages/game-client/README.md. */
export const clientVersion = '0.1.0';
