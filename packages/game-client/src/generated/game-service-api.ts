// Generated from packages/game-service/openapi.json by `npm run generate:api-types -w @playstack/game-client`.
// Do not edit: a test fails when this file and the OpenAPI document disagree.

export interface paths {
  "/v1/games/{gameId}/auth/exchange": {
    post: {
      path: {
        gameId: string;
      };
      query: Record<string, never>;
      requestBody: {
        /** the platform's server authorization code (dev provider: dev:<name>) */
        authorizationCode: string;
      };
      responses: {
        "200": {
          /** send as Authorization: Bearer <accessToken> to game endpoints */
          accessToken: string;
          tokenType: "Bearer";
          /** access token lifetime in seconds */
          expiresIn: number;
          /** opaque; spent by /auth/refresh, which returns the next one */
          refreshToken: string;
          /** refresh token lifetime in seconds */
          refreshExpiresIn: number;
          player: {
            id: string;
            displayName: string;
          };
        };
        "400": {
          error: {
            /** kebab-case error code */
            code: string;
            message: string;
            requestId: string;
          };
        };
        "401": {
          error: {
            /** kebab-case error code */
            code: string;
            message: string;
            requestId: string;
          };
        };
        "404": {
          error: {
            /** kebab-case error code */
            code: string;
            message: string;
            requestId: string;
          };
        };
        "413": {
          error: {
            /** kebab-case error code */
            code: string;
            message: string;
            requestId: string;
          };
        };
        "415": {
          error: {
            /** kebab-case error code */
            code: string;
            message: string;
            requestId: string;
          };
        };
        "429": {
          error: {
            /** kebab-case error code */
            code: string;
            message: string;
            requestId: string;
          };
        };
        "502": {
          error: {
            /** kebab-case error code */
            code: string;
            message: string;
            requestId: string;
          };
        };
        "503": {
          error: {
            /** kebab-case error code */
            code: string;
            message: string;
            requestId: string;
          };
        };
      };
    };
  };
  "/v1/games/{gameId}/auth/logout": {
    post: {
      path: {
        gameId: string;
      };
      query: Record<string, never>;
      requestBody: {
        /** the refresh token last received */
        refreshToken: string;
      };
      responses: {
        "200": {
          revoked: true;
        };
        "400": {
          error: {
            /** kebab-case error code */
            code: string;
            message: string;
            requestId: string;
          };
        };
        "401": {
          error: {
            /** kebab-case error code */
            code: string;
            message: string;
            requestId: string;
          };
        };
        "404": {
          error: {
            /** kebab-case error code */
            code: string;
            message: string;
            requestId: string;
          };
        };
        "413": {
          error: {
            /** kebab-case error code */
            code: string;
            message: string;
            requestId: string;
          };
        };
        "415": {
          error: {
            /** kebab-case error code */
            code: string;
            message: string;
            requestId: string;
          };
        };
        "429": {
          error: {
            /** kebab-case error code */
            code: string;
            message: string;
            requestId: string;
          };
        };
      };
    };
  };
  "/v1/games/{gameId}/auth/refresh": {
    post: {
      path: {
        gameId: string;
      };
      query: Record<string, never>;
      requestBody: {
        /** the refresh token last received */
        refreshToken: string;
      };
      responses: {
        "200": {
          /** send as Authorization: Bearer <accessToken> to game endpoints */
          accessToken: string;
          tokenType: "Bearer";
          /** access token lifetime in seconds */
          expiresIn: number;
          /** opaque; spent by /auth/refresh, which returns the next one */
          refreshToken: string;
          /** refresh token lifetime in seconds */
          refreshExpiresIn: number;
          player: {
            id: string;
            displayName: string;
          };
        };
        "400": {
          error: {
            /** kebab-case error code */
            code: string;
            message: string;
            requestId: string;
          };
        };
        "401": {
          error: {
            /** kebab-case error code */
            code: string;
            message: string;
            requestId: string;
          };
        };
        "404": {
          error: {
            /** kebab-case error code */
            code: string;
            message: string;
            requestId: string;
          };
        };
        "413": {
          error: {
            /** kebab-case error code */
            code: string;
            message: string;
            requestId: string;
          };
        };
        "415": {
          error: {
            /** kebab-case error code */
            code: string;
            message: string;
            requestId: string;
          };
        };
        "429": {
          error: {
            /** kebab-case error code */
            code: string;
            message: string;
            requestId: string;
          };
        };
      };
    };
  };
  "/v1/games/{gameId}/leaderboards/{boardId}": {
    get: {
      path: {
        gameId: string;
        boardId: string;
      };
      query: {
        players?: string;
        period?: string;
        cursor?: string;
        limit?: number;
      };
      requestBody: never;
      responses: {
        "200": {
          boardId: string;
          /** `all` or the resolved period key */
          period: string;
          /** event periods only: when the window opens */
          startsAt?: string;
          /** event periods only: when the window closes (exclusive); from then on its standings are frozen */
          endsAt?: string;
          /** event periods only: upcoming, live (taking runs) or ended (final standings) */
          state?: "upcoming" | "live" | "ended";
          /** how scores read: integer (12,345), decimal (12,345.678), duration-ms (m:ss.SSS), duration-s (m:ss) */
          format: "integer" | "decimal" | (("duration-ms")) | (("duration-s"));
          /** shown after each score, e.g. pts */
          unit?: string;
          entries: Array<{
            /** 1-based position: score in board order, then subscore in its own order (boards with one), then earlier achievedAt, then playerId */
            rank: number;
            playerId: string;
            displayName: string;
            score: number;
            /** boards with a subscore only: the tie-break value of the run the entry stands for (0 for entries recorded before the board declared it) */
            subscore?: number;
            /** when the entry reached its score */
            achievedAt: string;
            /** boards keeping metadata only: the board's metadata values of the run the entry stands for; null when the entry has none (recorded before the board kept metadata) */
            metadata?: {
              [key: string]: number;
            } | null;
          }>;
          /** null on the last page */
          nextCursor: string | null;
        };
        "400": {
          error: {
            /** kebab-case error code */
            code: string;
            message: string;
            requestId: string;
          };
        };
        "401": {
          error: {
            /** kebab-case error code */
            code: string;
            message: string;
            requestId: string;
          };
        };
        "404": {
          error: {
            /** kebab-case error code */
            code: string;
            message: string;
            requestId: string;
          };
        };
        "429": {
          error: {
            /** kebab-case error code */
            code: string;
            message: string;
            requestId: string;
          };
        };
        "503": {
          error: {
            /** kebab-case error code */
            code: string;
            message: string;
            requestId: string;
          };
        };
      };
    };
    post: {
      path: {
        gameId: string;
        boardId: string;
      };
      query: {
        period?: string;
        cursor?: string;
        limit?: number;
      };
      requestBody: {
        /** a friends' board: the entries of these players alone (with the caller's), ranked 1..n among themselves; up to 100 player ids */
        players: Array<string>;
      };
      responses: {
        "200": {
          boardId: string;
          /** `all` or the resolved period key */
          period: string;
          /** event periods only: when the window opens */
          startsAt?: string;
          /** event periods only: when the window closes (exclusive); from then on its standings are frozen */
          endsAt?: string;
          /** event periods only: upcoming, live (taking runs) or ended (final standings) */
          state?: "upcoming" | "live" | "ended";
          /** how scores read: integer (12,345), decimal (12,345.678), duration-ms (m:ss.SSS), duration-s (m:ss) */
          format: "integer" | "decimal" | (("duration-ms")) | (("duration-s"));
          /** shown after each score, e.g. pts */
          unit?: string;
          entries: Array<{
            /** 1-based position: score in board order, then subscore in its own order (boards with one), then earlier achievedAt, then playerId */
            rank: number;
            playerId: string;
            displayName: string;
            score: number;
            /** boards with a subscore only: the tie-break value of the run the entry stands for (0 for entries recorded before the board declared it) */
            subscore?: number;
            /** when the entry reached its score */
            achievedAt: string;
            /** boards keeping metadata only: the board's metadata values of the run the entry stands for; null when the entry has none (recorded before the board kept metadata) */
            metadata?: {
              [key: string]: number;
            } | null;
          }>;
          /** null on the last page */
          nextCursor: string | null;
        };
        "400": {
          error: {
            /** kebab-case error code */
            code: string;
            message: string;
            requestId: string;
          };
        };
        "401": {
          error: {
            /** kebab-case error code */
            code: string;
            message: string;
            requestId: string;
          };
        };
        "404": {
          error: {
            /** kebab-case error code */
            code: string;
            message: string;
            requestId: string;
          };
        };
        "429": {
          error: {
            /** kebab-case error code */
            code: string;
            message: string;
            requestId: string;
          };
        };
        "503": {
          error: {
            /** kebab-case error code */
            code: string;
            message: string;
            requestId: string;
          };
        };
      };
    };
  };
  "/v1/games/{gameId}/leaderboards/{boardId}/around-me": {
    get: {
      path: {
        gameId: string;
        boardId: string;
      };
      query: {
        players?: string;
        period?: string;
        radius?: number;
      };
      requestBody: never;
      responses: {
        "200": {
          boardId: string;
          /** `all` or the resolved period key */
          period: string;
          /** event periods only: when the window opens */
          startsAt?: string;
          /** event periods only: when the window closes (exclusive); from then on its standings are frozen */
          endsAt?: string;
          /** event periods only: upcoming, live (taking runs) or ended (final standings) */
          state?: "upcoming" | "live" | "ended";
          /** how scores read: integer (12,345), decimal (12,345.678), duration-ms (m:ss.SSS), duration-s (m:ss) */
          format: "integer" | "decimal" | (("duration-ms")) | (("duration-s"));
          /** shown after each score, e.g. pts */
          unit?: string;
          total: number;
          /** centred on the caller, the caller included; empty when they have no entry */
          entries: Array<{
            /** 1-based position: score in board order, then subscore in its own order (boards with one), then earlier achievedAt, then playerId */
            rank: number;
            playerId: string;
            displayName: string;
            score: number;
            /** boards with a subscore only: the tie-break value of the run the entry stands for (0 for entries recorded before the board declared it) */
            subscore?: number;
            /** when the entry reached its score */
            achievedAt: string;
            /** boards keeping metadata only: the board's metadata values of the run the entry stands for; null when the entry has none (recorded before the board kept metadata) */
            metadata?: {
              [key: string]: number;
            } | null;
          }>;
        };
        "400": {
          error: {
            /** kebab-case error code */
            code: string;
            message: string;
            requestId: string;
          };
        };
        "401": {
          error: {
            /** kebab-case error code */
            code: string;
            message: string;
            requestId: string;
          };
        };
        "404": {
          error: {
            /** kebab-case error code */
            code: string;
            message: string;
            requestId: string;
          };
        };
        "429": {
          error: {
            /** kebab-case error code */
            code: string;
            message: string;
            requestId: string;
          };
        };
        "503": {
          error: {
            /** kebab-case error code */
            code: string;
            message: string;
            requestId: string;
          };
        };
      };
    };
    post: {
      path: {
        gameId: string;
        boardId: string;
      };
      query: {
        period?: string;
        radius?: number;
      };
      requestBody: {
        /** a friends' board: the entries of these players alone (with the caller's), ranked 1..n among themselves; up to 100 player ids */
        players: Array<string>;
      };
      responses: {
        "200": {
          boardId: string;
          /** `all` or the resolved period key */
          period: string;
          /** event periods only: when the window opens */
          startsAt?: string;
          /** event periods only: when the window closes (exclusive); from then on its standings are frozen */
          endsAt?: string;
          /** event periods only: upcoming, live (taking runs) or ended (final standings) */
          state?: "upcoming" | "live" | "ended";
          /** how scores read: integer (12,345), decimal (12,345.678), duration-ms (m:ss.SSS), duration-s (m:ss) */
          format: "integer" | "decimal" | (("duration-ms")) | (("duration-s"));
          /** shown after each score, e.g. pts */
          unit?: string;
          total: number;
          /** centred on the caller, the caller included; empty when they have no entry */
          entries: Array<{
            /** 1-based position: score in board order, then subscore in its own order (boards with one), then earlier achievedAt, then playerId */
            rank: number;
            playerId: string;
            displayName: string;
            score: number;
            /** boards with a subscore only: the tie-break value of the run the entry stands for (0 for entries recorded before the board declared it) */
            subscore?: number;
            /** when the entry reached its score */
            achievedAt: string;
            /** boards keeping metadata only: the board's metadata values of the run the entry stands for; null when the entry has none (recorded before the board kept metadata) */
            metadata?: {
              [key: string]: number;
            } | null;
          }>;
        };
        "400": {
          error: {
            /** kebab-case error code */
            code: string;
            message: string;
            requestId: string;
          };
        };
        "401": {
          error: {
            /** kebab-case error code */
            code: string;
            message: string;
            requestId: string;
          };
        };
        "404": {
          error: {
            /** kebab-case error code */
            code: string;
            message: string;
            requestId: string;
          };
        };
        "429": {
          error: {
            /** kebab-case error code */
            code: string;
            message: string;
            requestId: string;
          };
        };
        "503": {
          error: {
            /** kebab-case error code */
            code: string;
            message: string;
            requestId: string;
          };
        };
      };
    };
  };
  "/v1/games/{gameId}/leaderboards/{boardId}/me": {
    get: {
      path: {
        gameId: string;
        boardId: string;
      };
      query: {
        players?: string;
        period?: string;
        radius?: number;
      };
      requestBody: never;
      responses: {
        "200": {
          boardId: string;
          /** `all` or the resolved period key */
          period: string;
          /** event periods only: when the window opens */
          startsAt?: string;
          /** event periods only: when the window closes (exclusive); from then on its standings are frozen */
          endsAt?: string;
          /** event periods only: upcoming, live (taking runs) or ended (final standings) */
          state?: "upcoming" | "live" | "ended";
          /** how scores read: integer (12,345), decimal (12,345.678), duration-ms (m:ss.SSS), duration-s (m:ss) */
          format: "integer" | "decimal" | (("duration-ms")) | (("duration-s"));
          /** shown after each score, e.g. pts */
          unit?: string;
          /** entries on the board in this period (with players: the chosen players' entries) */
          total: number;
          /** the caller's entry, null when they have none */
          entry: {
            /** 1-based position: score in board order, then subscore in its own order (boards with one), then earlier achievedAt, then playerId */
            rank: number;
            playerId: string;
            displayName: string;
            score: number;
            /** boards with a subscore only: the tie-break value of the run the entry stands for (0 for entries recorded before the board declared it) */
            subscore?: number;
            /** when the entry reached its score */
            achievedAt: string;
            /** boards keeping metadata only: the board's metadata values of the run the entry stands for; null when the entry has none (recorded before the board kept metadata) */
            metadata?: {
              [key: string]: number;
            } | null;
          } | null;
          /** with radius: up to radius entries above and below, the caller excluded */
          neighbors?: Array<{
            /** 1-based position: score in board order, then subscore in its own order (boards with one), then earlier achievedAt, then playerId */
            rank: number;
            playerId: string;
            displayName: string;
            score: number;
            /** boards with a subscore only: the tie-break value of the run the entry stands for (0 for entries recorded before the board declared it) */
            subscore?: number;
            /** when the entry reached its score */
            achievedAt: string;
            /** boards keeping metadata only: the board's metadata values of the run the entry stands for; null when the entry has none (recorded before the board kept metadata) */
            metadata?: {
              [key: string]: number;
            } | null;
          }>;
        };
        "400": {
          error: {
            /** kebab-case error code */
            code: string;
            message: string;
            requestId: string;
          };
        };
        "401": {
          error: {
            /** kebab-case error code */
            code: string;
            message: string;
            requestId: string;
          };
        };
        "404": {
          error: {
            /** kebab-case error code */
            code: string;
            message: string;
            requestId: string;
          };
        };
        "429": {
          error: {
            /** kebab-case error code */
            code: string;
            message: string;
            requestId: string;
          };
        };
        "503": {
          error: {
            /** kebab-case error code */
            code: string;
            message: string;
            requestId: string;
          };
        };
      };
    };
    post: {
      path: {
        gameId: string;
        boardId: string;
      };
      query: {
        period?: string;
        radius?: number;
      };
      requestBody: {
        /** a friends' board: the entries of these players alone (with the caller's), ranked 1..n among themselves; up to 100 player ids */
        players: Array<string>;
      };
      responses: {
        "200": {
          boardId: string;
          /** `all` or the resolved period key */
          period: string;
          /** event periods only: when the window opens */
          startsAt?: string;
          /** event periods only: when the window closes (exclusive); from then on its standings are frozen */
          endsAt?: string;
          /** event periods only: upcoming, live (taking runs) or ended (final standings) */
          state?: "upcoming" | "live" | "ended";
          /** how scores read: integer (12,345), decimal (12,345.678), duration-ms (m:ss.SSS), duration-s (m:ss) */
          format: "integer" | "decimal" | (("duration-ms")) | (("duration-s"));
          /** shown after each score, e.g. pts */
          unit?: string;
          /** entries on the board in this period (with players: the chosen players' entries) */
          total: number;
          /** the caller's entry, null when they have none */
          entry: {
            /** 1-based position: score in board order, then subscore in its own order (boards with one), then earlier achievedAt, then playerId */
            rank: number;
            playerId: string;
            displayName: string;
            score: number;
            /** boards with a subscore only: the tie-break value of the run the entry stands for (0 for entries recorded before the board declared it) */
            subscore?: number;
            /** when the entry reached its score */
            achievedAt: string;
            /** boards keeping metadata only: the board's metadata values of the run the entry stands for; null when the entry has none (recorded before the board kept metadata) */
            metadata?: {
              [key: string]: number;
            } | null;
          } | null;
          /** with radius: up to radius entries above and below, the caller excluded */
          neighbors?: Array<{
            /** 1-based position: score in board order, then subscore in its own order (boards with one), then earlier achievedAt, then playerId */
            rank: number;
            playerId: string;
            displayName: string;
            score: number;
            /** boards with a subscore only: the tie-break value of the run the entry stands for (0 for entries recorded before the board declared it) */
            subscore?: number;
            /** when the entry reached its score */
            achievedAt: string;
            /** boards keeping metadata only: the board's metadata values of the run the entry stands for; null when the entry has none (recorded before the board kept metadata) */
            metadata?: {
              [key: string]: number;
            } | null;
          }>;
        };
        "400": {
          error: {
            /** kebab-case error code */
            code: string;
            message: string;
            requestId: string;
          };
        };
        "401": {
          error: {
            /** kebab-case error code */
            code: string;
            message: string;
            requestId: string;
          };
        };
        "404": {
          error: {
            /** kebab-case error code */
            code: string;
            message: string;
            requestId: string;
          };
        };
        "429": {
          error: {
            /** kebab-case error code */
            code: string;
            message: string;
            requestId: string;
          };
        };
        "503": {
          error: {
            /** kebab-case error code */
            code: string;
            message: string;
            requestId: string;
          };
        };
      };
    };
  };
  "/v1/games/{gameId}/player": {
    delete: {
      path: {
        gameId: string;
      };
      query: Record<string, never>;
      requestBody: never;
      responses: {
        "200": {
          /** how many items of each kind were erased */
          deleted: {
            runs: number;
            /** leaderboard entries, every period */
            entries: number;
            /** refresh families (sign-ins) */
            sessions: number;
            [key: string]: number;
          };
        };
        "400": {
          error: {
            /** kebab-case error code */
            code: string;
            message: string;
            requestId: string;
          };
        };
        "401": {
          error: {
            /** kebab-case error code */
            code: string;
            message: string;
            requestId: string;
          };
        };
        "404": {
          error: {
            /** kebab-case error code */
            code: string;
            message: string;
            requestId: string;
          };
        };
        "429": {
          error: {
            /** kebab-case error code */
            code: string;
            message: string;
            requestId: string;
          };
        };
      };
    };
  };
  "/v1/games/{gameId}/runs/{adapterId}": {
    post: {
      path: {
        gameId: string;
        adapterId: string;
      };
      query: Record<string, never>;
      requestBody: {
        /** client-chosen id, unique per game and player; resubmitting the same content is safe */
        runId: string;
        /** evidence for the adapter, in its type's payload schema (see /admin/adapters); may include client-side hints */
        payload: {
          [key: string]: unknown;
        };
      };
      responses: {
        "200": {
          runId: string;
          adapterId: string;
          status: "accepted";
          /** the adapter's derived values, e.g. score */
          result: {
            [key: string]: number;
          };
          /** every board and period the run was recorded on */
          leaderboards: Array<{
            boardId: string;
            /** `all`, or the key of the period the run counted in: 2026-11-21, 2026-W47, 2026-11 */
            period: string;
            /** the player's entry after this run */
            score: number;
            /** rank after this run; null only when the entry was erased before the ranks were read */
            rank: number | null;
            /** whether this run changed the player's entry */
            improved: boolean;
          }>;
          /** event boards fed by this adapter that did not take the run, and why; empty when every board took it */
          notScored: Array<{
            boardId: string;
            /** event-not-started: before the first window; event-ended: after a window ended (its standings are frozen) or between windows; event-full: the window has its maxEntrants and the player had no entry */
            reason: (("event-not-started")) | (("event-ended")) | (("event-full"));
            /** the reason in words, with the times involved */
            message: string;
          }>;
        };
        "400": {
          error: {
            /** kebab-case error code */
            code: string;
            message: string;
            requestId: string;
          };
        };
        "401": {
          error: {
            /** kebab-case error code */
            code: string;
            message: string;
            requestId: string;
          };
        };
        "404": {
          error: {
            /** kebab-case error code */
            code: string;
            message: string;
            requestId: string;
          };
        };
        "409": {
          error: {
            /** kebab-case error code */
            code: string;
            message: string;
            requestId: string;
          };
        };
        "413": {
          error: {
            /** kebab-case error code */
            code: string;
            message: string;
            requestId: string;
          };
        };
        "415": {
          error: {
            /** kebab-case error code */
            code: string;
            message: string;
            requestId: string;
          };
        };
        "422": {
          error: {
            /** kebab-case error code */
            code: string;
            message: string;
            requestId: string;
          };
        };
        "429": {
          error: {
            /** kebab-case error code */
            code: string;
            message: string;
            requestId: string;
          };
        };
      };
    };
  };
}

export interface components {
  schemas: {
    "ErrorResponse": {
      error: {
        /** kebab-case error code */
        code: string;
        message: string;
        requestId: string;
      };
    };
  };
}
