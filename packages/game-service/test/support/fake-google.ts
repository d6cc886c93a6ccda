import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A Play Games player the fake knows, reachable through a server auth code. */
export interface FakePlayer {
  code: string;
  playerId: string;
  displayName: string;
  /** The Play Games application the code was issued for. */
  applicationId: string;
}

export interface RecordedTokenRequest {
  contentType: string | undefined;
  form: Record<string, string>;
}

/** How the fake misbehaves; `ok` answers like Google does. */
export type FakeMode = 'ok' | 'token-500' | 'games-500' | 'slow';

/**
 * A local stand-in for Google's OAuth token endpoint and the Play Games API, over real HTTP:
 * `POST /token`, `GET /games/v1/applications/{id}/verify`, `GET /games/v1/players/me`.
 */
export class FakeGoogle {
  readonly tokenRequests: RecordedTokenRequest[] = [];
  mode: FakeMode = 'ok';
  slowMs = 5_000;
  readonly #players = new Map<string, FakePlayer>();
  readonly #accessTokens = new Map<string, FakePlayer>();
  readonly #server: Server;
  readonly #pending = new Set<ServerResponse>();

  private constructor() {
    this.#server = createServer((request, response) => {
      this.#handle(request, response).catch(() => response.destroy());
    });
  }

  static async start(): Promise<FakeGoogle> {
    const fake = new FakeGoogle();
    await new Promise<void>((resolve) => fake.#server.listen(0, '127.0.0.1', resolve));
    return fake;
  }

  get baseUrl(): string {
    return `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
  }

  /** Environment pointing the service at this fake. */
  get env(): Record<string, string> {
    return { GOOGLE_OAUTH_TOKEN_URL: `${this.baseUrl}/token`, GOOGLE_GAMES_API_URL: this.baseUrl };
  }

  addPlayer(player: FakePlayer): void {
    this.#players.set(player.code, player);
  }

  async stop(): Promise<void> {
    for (const response of this.#pending) response.destroy();
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  async #handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    if (this.mode === 'slow') {
      this.#pending.add(response);
      await new Promise((resolve) => setTimeout(resolve, this.slowMs));
      this.#pending.delete(response);
      if (response.destroyed) return;
    }
    const url = new URL(request.url ?? '/', this.baseUrl);
    const send = (status: number, json: unknown) => {
      response.writeHead(status, { 'content-type': 'application/json' });
      response.end(JSON.stringify(json));
    };

    if (request.method === 'POST' && url.pathname === '/token') {
      const form = Object.fromEntries(new URLSearchParams(body));
      this.tokenRequests.push({ contentType: request.headers['content-type'], form });
      if (this.mode === 'token-500') return send(500, { error: 'internal_failure' });
      const player = this.#players.get(form.code ?? '');
      if (form.grant_type !== 'authorization_code' || !player) return send(400, { error: 'invalid_grant', error_description: 'Bad Request' });
      if (form.client_secret !== 'galaxy-secret') return send(401, { error: 'invalid_client' });
      const accessToken = `at-${player.playerId}-${this.tokenRequests.length}`;
      this.#accessTokens.set(accessToken, player);
      return send(200, { access_token: accessToken, expires_in: 3599, token_type: 'Bearer', scope: 'https://www.googleapis.com/auth/games_lite' });
    }

    const header = request.headers.authorization ?? '';
    const player = this.#accessTokens.get(header.replace(/^Bearer /, ''));
    if (this.mode === 'games-500') return send(500, { error: { code: 500, message: 'Backend Error' } });
    if (!player) return send(401, { error: { code: 401, message: 'Request had invalid authentication credentials.' } });

    const verify = /^\/games\/v1\/applications\/([^/]+)\/verify$/.exec(url.pathname);
    if (request.method === 'GET' && verify) {
      if (decodeURIComponent(verify[1]!) !== player.applicationId) {
        return send(403, { error: { code: 403, message: 'The access token is not for this application.' } });
      }
      return send(200, { kind: 'games#applicationVerifyResponse', player_id: player.playerId });
    }
    if (request.method === 'GET' && url.pathname === '/games/v1/players/me') {
      return send(200, { kind: 'games#player', playerId: player.playerId, displayName: player.displayName });
    }
    return send(404, { error: { code: 404, message: 'Not Found' } });
  }
}
