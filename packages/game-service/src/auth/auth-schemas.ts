import { Type, type Static } from '@sinclair/typebox';

export const authorizationCodeMaxLength = 2048;
export const refreshTokenMinLength = 16;
export const refreshTokenMaxLength = 256;

export const ExchangeBody = Type.Object(
  {
    authorizationCode: Type.String({
      minLength: 1,
      maxLength: authorizationCodeMaxLength,
      description: "the platform's server authorization code (dev provider: dev:<name>)",
    }),
  },
  { additionalProperties: false },
);
export type ExchangeBody = Static<typeof ExchangeBody>;

const RefreshToken = Type.String({ minLength: refreshTokenMinLength, maxLength: refreshTokenMaxLength, description: 'the refresh token last received' });

export const RefreshBody = Type.Object({ refreshToken: RefreshToken }, { additionalProperties: false });
export type RefreshBody = Static<typeof RefreshBody>;

export const LogoutBody = Type.Object({ refreshToken: RefreshToken }, { additionalProperties: false });
export type LogoutBody = Static<typeof LogoutBody>;

export const SessionResponse = Type.Object(
  {
    accessToken: Type.String({ description: 'send as Authorization: Bearer <accessToken> to game endpoints' }),
    tokenType: Type.Literal('Bearer'),
    expiresIn: Type.Integer({ description: 'access token lifetime in seconds' }),
    refreshToken: Type.String({ description: 'opaque; spent by /auth/refresh, which returns the next one' }),
    refreshExpiresIn: Type.Integer({ description: 'refresh token lifetime in seconds' }),
    player: Type.Object({ id: Type.String(), displayName: Type.String() }),
  },
  { description: 'A session: the access token for game endpoints, the refresh token that renews it, and the player' },
);
export type SessionResponse = Static<typeof SessionResponse>;

export const LogoutResponse = Type.Object(
  { revoked: Type.Literal(true) },
  { description: "The token's refresh family and the access tokens issued from it are revoked" },
);
export type LogoutResponse = Static<typeof LogoutResponse>;
