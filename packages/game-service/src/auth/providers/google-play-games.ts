import { ApiError, tracedFetch } from '@playstack/server-kit';
import type { PlatformIdentity, PlatformProvider } from './platform-provider.js';
import './provider-error-codes.js';

type GoogleSettings = { provider: 'google-play-games'; clientId: string; clientSecretEnv: string; applicationId: string };

export interface GooglePlayGamesOptions {
  /** OAuth token endpoint (GOOGLE_OAUTH_TOKEN_URL). */
  tokenUrl: string;
  /** Games API base (GOOGLE_GAMES_API_URL); `games/v1/...` is appended. */
  gamesApiUrl: string;
  /** Per call. */
  timeoutMs: number;
  /** Where the manifest's `clientSecretEnv` names are looked up. */
  secrets: Readonly<Record<string, string | undefined>>;
}

interface Answer {
  status: number;
  body: unknown;
}

/** The most of an answer read from Google (a player resource is about a kilobyte). */
const maxAnswerBytes = 1024 * 1024;

/** The answer's text, or undefined when it is longer than `maxAnswerBytes` (then not read further). */
async function boundedText(response: Response): Promise<string | undefined> {
  if (Number(response.headers.get('content-length')) > maxAnswerBytes) {
    await response.body?.cancel();
    return undefined;
  }
  if (!response.body) return '';
  const chunks: Uint8Array[] = [];
  let total = 0;
  for await (const chunk of response.body) {
    total += chunk.byteLength;
    if (total > maxAnswerBytes) return undefined;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** A call to Google; network failures and timeouts are `provider-unavailable`. */
async function call(step: string, url: string, init: RequestInit, timeoutMs: number): Promise<Answer> {
  let response: Response;
  let text: string | undefined;
  try {
    response = await tracedFetch(url, { ...init, signal: AbortSignal.timeout(timeoutMs), redirect: 'error' });
    text = await boundedText(response);
  } catch (error) {
    const timedOut = (error as Error).name === 'TimeoutError';
    throw new ApiError(
      'provider-unavailable',
      timedOut ? `Google Play Games did not answer the ${step} within ${timeoutMs} ms.` : `Google Play Games could not be reached for the ${step}.`,
      { cause: error },
    );
  }
  if (text === undefined) throw new ApiError('provider-error', `Google answered the ${step} with more than ${maxAnswerBytes} bytes.`);
  let body: unknown;
  try {
    body = text === '' ? undefined : JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { status: response.status, body };
}

function stringMember(body: unknown, name: string): string | undefined {
  const value = (body as Record<string, unknown> | undefined)?.[name];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function providerError(step: string, answer: Answer): ApiError {
  return new ApiError('provider-error', `Google Play Games answered the ${step} with HTTP ${answer.status}.`);
}

/**
 * Google Play Games Services, server-side access: the server auth code is exchanged for an
 * access token, the token is checked to belong to this game's Play Games application, and the
 * player is read. The Play Games `playerId` is the identity.
 */
export function googlePlayGamesProvider(options: GooglePlayGamesOptions): PlatformProvider<GoogleSettings> {
  const gamesApi = options.gamesApiUrl.replace(/\/+$/, '');
  return {
    id: 'google-play-games',
    async identify(authorizationCode, settings): Promise<PlatformIdentity> {
      const clientSecret = options.secrets[settings.clientSecretEnv];
      if (!clientSecret) {
        throw new ApiError('provider-error', `The server is missing its Google client secret (environment variable ${settings.clientSecretEnv}).`);
      }

      const token = await call(
        'token exchange',
        options.tokenUrl,
        {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
          body: new URLSearchParams({
            code: authorizationCode,
            client_id: settings.clientId,
            client_secret: clientSecret,
            redirect_uri: '',
            grant_type: 'authorization_code',
          }).toString(),
        },
        options.timeoutMs,
      );
      if (token.status === 400 && stringMember(token.body, 'error') === 'invalid_grant') {
        throw new ApiError('invalid-grant', 'Google refused the authorization code (invalid, expired or already used).');
      }
      if (token.status !== 200) throw providerError('token exchange', token);
      const accessToken = stringMember(token.body, 'access_token');
      if (!accessToken) throw new ApiError('provider-error', 'Google answered the token exchange without an access token.');

      const authorization = { authorization: `Bearer ${accessToken}`, accept: 'application/json' };
      const verify = await call(
        'application check',
        `${gamesApi}/games/v1/applications/${encodeURIComponent(settings.applicationId)}/verify`,
        { headers: authorization },
        options.timeoutMs,
      );
      if (verify.status === 401 || verify.status === 403 || verify.status === 404) {
        throw new ApiError('invalid-grant', "The authorization code was not issued for this game's Play Games application.");
      }
      if (verify.status !== 200) throw providerError('application check', verify);

      const me = await call('player lookup', `${gamesApi}/games/v1/players/me`, { headers: authorization }, options.timeoutMs);
      if (me.status !== 200) throw providerError('player lookup', me);
      const playerId = stringMember(me.body, 'playerId');
      if (!playerId) throw new ApiError('provider-error', 'Google answered the player lookup without a playerId.');
      const verifiedPlayer = stringMember(verify.body, 'player_id');
      if (verifiedPlayer !== undefined && verifiedPlayer !== playerId) {
        throw new ApiError('provider-error', 'Google named different players in the application check and the player lookup.');
      }
      return { subject: playerId, displayName: stringMember(me.body, 'displayName') ?? 'Player' };
    },
  };
}
