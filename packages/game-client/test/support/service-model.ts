// An in-memory model of the game service's session and run semantics, reached through a
// `fetch` function, for the property-based queue test: it runs thousands of requests per
// second and can fail any request before or after acting on it. The integration tests run the
// same library against the real service.

export type Fault =
  /** The request never reaches the service. */
  | 'drop-request'
  /** The service acts, then the connection breaks before the answer arrives. */
  | 'lose-response'
  | 'answer-500'
  | 'answer-429';

export interface AcceptedRun {
  playerId: string;
  adapterId: string;
  content: string;
}

const refreshLifetimeSeconds = 30 * 24 * 60 * 60;

export class ServiceModel {
  /** Accepted runs by `${playerId} ${runId}`: the service's idempotency key. */
  readonly accepted = new Map<string, AcceptedRun>();
  readonly faults: Fault[] = [];
  conflicts = 0;
  refreshes = 0;
  #tokens = 0;
  readonly #access = new Map<string, { playerId: string; expiresAt: number }>();
  readonly #refresh = new Map<string, string>();

  constructor(
    private readonly now: () => number,
    private readonly accessLifetimeSeconds = 15 * 60,
  ) {}

  readonly fetch = async (input: string, init: RequestInit): Promise<Response> => {
    const fault = this.faults.shift();
    if (fault === 'drop-request') throw new TypeError('fetch failed');
    if (fault === 'answer-500') return json(500, { error: { code: 'internal-error', message: 'boom', requestId: 'r' } });
    if (fault === 'answer-429') {
      return json(429, { error: { code: 'rate-limited', message: 'slow down', requestId: 'r' } }, { 'retry-after': '1' });
    }
    const response = this.#handle(new URL(input).pathname, init);
    if (fault === 'lose-response') throw new TypeError('fetch failed');
    return response;
  };

  #handle(path: string, init: RequestInit): Response {
    const body = init.body === undefined ? undefined : JSON.parse(String(init.body));
    const route = /^\/v1\/games\/([^/]+)\/(.+)$/.exec(path);
    if (!route) return json(404, { error: { code: 'not-found', message: path, requestId: 'r' } });
    const rest = route[2]!;
    if (rest === 'auth/exchange') return json(200, this.#issue(String(body.authorizationCode).replace(/^dev:/, '')));
    if (rest === 'auth/refresh') {
      const playerId = this.#refresh.get(body.refreshToken);
      if (!playerId) return json(401, { error: { code: 'invalid-grant', message: 'spent', requestId: 'r' } });
      this.#refresh.delete(body.refreshToken);
      this.refreshes += 1;
      return json(200, this.#issue(playerId));
    }
    const token = String(new Headers(init.headers).get('authorization')).replace(/^Bearer /, '');
    const access = this.#access.get(token);
    if (!access || access.expiresAt <= this.now()) return json(401, { error: { code: 'unauthorized', message: 'no', requestId: 'r' } });
    const run = /^runs\/(.+)$/.exec(rest);
    if (init.method === 'POST' && run) {
      const adapterId = decodeURIComponent(run[1]!);
      const key = `${access.playerId} ${body.runId}`;
      const content = JSON.stringify(body.payload);
      const previous = this.accepted.get(key);
      if (previous && previous.content !== content) {
        this.conflicts += 1;
        return json(409, { error: { code: 'run-id-conflict', message: 'conflict', requestId: 'r' } });
      }
      this.accepted.set(key, { playerId: access.playerId, adapterId, content });
      return json(200, { runId: body.runId, adapterId, status: 'accepted', result: body.payload, leaderboards: [] });
    }
    return json(404, { error: { code: 'not-found', message: path, requestId: 'r' } });
  }

  #issue(playerId: string) {
    const accessToken = `access-${++this.#tokens}-${playerId}`;
    const refreshToken = `refresh-${this.#tokens}-${playerId}-padding-padding`;
    this.#access.set(accessToken, { playerId, expiresAt: this.now() + this.accessLifetimeSeconds * 1000 });
    this.#refresh.set(refreshToken, playerId);
    return {
      accessToken,
      tokenType: 'Bearer',
      expiresIn: this.accessLifetimeSeconds,
      refreshToken,
      refreshExpiresIn: refreshLifetimeSeconds,
      player: { id: playerId, displayName: playerId },
    };
  }
}

function json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });
}
