// Generated from packages/observability-service/openapi.json by `npm run generate:api-types -w @playstack/observability-web`.
// Do not edit: a test fails when this file and the OpenAPI document disagree.

export interface paths {
  "/api/v1/admin/invitations": {
    get: {
      path: Record<string, never>;
      query: Record<string, never>;
      requestBody: never;
      responses: {
        "200": {
          items: Array<{
            id: string;
            email: string;
            /** admin or member */
            role: "admin" | "member";
            status: "pending" | "accepted" | "revoked" | "expired";
            /** ISO 8601 UTC with milliseconds */
            createdAt: string;
            /** ISO 8601 UTC with milliseconds */
            expiresAt: string;
          }>;
        };
        "401": {
          error: {
            /** kebab-case error code */
            code: string;
            message: string;
            requestId: string;
          };
        };
        "403": {
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
      path: Record<string, never>;
      query: Record<string, never>;
      requestBody: {
        email: string;
        /** admin or member */
        role: "admin" | "member";
      };
      responses: {
        "201": {
          id: string;
          email: string;
          /** admin or member */
          role: "admin" | "member";
          /** ISO 8601 UTC with milliseconds */
          expiresAt: string;
          /** Shown this once: pass it to the invitee */
          token: string;
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
        "403": {
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
      };
    };
  };
  "/api/v1/admin/invitations/{id}": {
    delete: {
      path: {
        id: string;
      };
      query: Record<string, never>;
      requestBody: never;
      responses: {
        "200": {
          revoked: true;
        };
        "401": {
          error: {
            /** kebab-case error code */
            code: string;
            message: string;
            requestId: string;
          };
        };
        "403": {
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
      };
    };
  };
  "/api/v1/admin/keys": {
    get: {
      path: Record<string, never>;
      query: Record<string, never>;
      requestBody: never;
      responses: {
        "200": {
          items: Array<{
            id: string;
            name: string;
            /** The public start of the key, to recognise it */
            prefix: string;
            /** ISO 8601 UTC with milliseconds */
            createdAt: string;
            lastUsedAt: string | null;
            revokedAt: string | null;
          }>;
        };
        "401": {
          error: {
            /** kebab-case error code */
            code: string;
            message: string;
            requestId: string;
          };
        };
        "403": {
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
      path: Record<string, never>;
      query: Record<string, never>;
      requestBody: {
        name: string;
      };
      responses: {
        "201": {
          id: string;
          name: string;
          prefix: string;
          /** ISO 8601 UTC with milliseconds */
          createdAt: string;
          /** The secret, shown this once; only its hash is stored */
          key: string;
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
        "403": {
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
  "/api/v1/admin/keys/{id}": {
    delete: {
      path: {
        id: string;
      };
      query: Record<string, never>;
      requestBody: never;
      responses: {
        "200": {
          revoked: true;
        };
        "401": {
          error: {
            /** kebab-case error code */
            code: string;
            message: string;
            requestId: string;
          };
        };
        "403": {
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
      };
    };
  };
  "/api/v1/admin/retention": {
    get: {
      path: Record<string, never>;
      query: Record<string, never>;
      requestBody: never;
      responses: {
        "200": {
          /** days of telemetry kept */
          days: number;
        };
        "401": {
          error: {
            /** kebab-case error code */
            code: string;
            message: string;
            requestId: string;
          };
        };
        "403": {
          error: {
            /** kebab-case error code */
            code: string;
            message: string;
            requestId: string;
          };
        };
      };
    };
    put: {
      path: Record<string, never>;
      query: Record<string, never>;
      requestBody: {
        /** days of telemetry kept */
        days: number;
      };
      responses: {
        "200": {
          /** days of telemetry kept */
          days: number;
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
        "403": {
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
  "/api/v1/admin/users": {
    get: {
      path: Record<string, never>;
      query: Record<string, never>;
      requestBody: never;
      responses: {
        "200": {
          items: Array<{
            id: string;
            email: string;
            name: string;
            /** admin or member */
            role: "admin" | "member";
            active: boolean;
            /** ISO 8601 UTC with milliseconds */
            createdAt: string;
          }>;
        };
        "401": {
          error: {
            /** kebab-case error code */
            code: string;
            message: string;
            requestId: string;
          };
        };
        "403": {
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
  "/api/v1/admin/users/{id}": {
    patch: {
      path: {
        id: string;
      };
      query: Record<string, never>;
      requestBody: {
        /** admin or member */
        role?: "admin" | "member";
        /** false deactivates the user and ends their sessions */
        active?: boolean;
      };
      responses: {
        "200": {
          id: string;
          email: string;
          name: string;
          /** admin or member */
          role: "admin" | "member";
          active: boolean;
          /** ISO 8601 UTC with milliseconds */
          createdAt: string;
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
        "403": {
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
      };
    };
  };
  "/api/v1/alerts/channels": {
    get: {
      path: Record<string, never>;
      query: Record<string, never>;
      requestBody: never;
      responses: {
        "200": {
          items: Array<{
            id: string;
            name: string;
            kind: "webhook" | "slack" | "email";
            target: string;
            createdAt: string;
          }>;
        };
        "401": {
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
      path: Record<string, never>;
      query: Record<string, never>;
      requestBody: {
        name: string;
        kind: "webhook" | "slack" | "email";
        /** webhook and slack: where to POST. */
        url?: string;
        /** email: the addresses. */
        to?: Array<string>;
      };
      responses: {
        "201": {
          channel: {
            id: string;
            name: string;
            kind: "webhook" | "slack" | "email";
            target: string;
            createdAt: string;
          };
          /** webhook: the HMAC key of X-Alert-Signature, shown this once (stored sealed). */
          signingSecret: string | null;
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
        "403": {
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
      };
    };
  };
  "/api/v1/alerts/channels/{id}": {
    delete: {
      path: {
        id: string;
      };
      query: Record<string, never>;
      requestBody: never;
      responses: {
        "204": unknown;
        "401": {
          error: {
            /** kebab-case error code */
            code: string;
            message: string;
            requestId: string;
          };
        };
        "403": {
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
      };
    };
  };
  "/api/v1/alerts/channels/{id}/deliveries": {
    get: {
      path: {
        id: string;
      };
      query: {
        limit?: number;
      };
      requestBody: never;
      responses: {
        "200": {
          items: Array<{
            id: number;
            eventId: number | null;
            channelId: string;
            status: "pending" | "delivered" | "failed";
            attempts: number;
            nextAttemptAt: string | null;
            lastStatusCode: number | null;
            lastError: string | null;
            createdAt: string;
            finishedAt: string | null;
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
      };
    };
  };
  "/api/v1/alerts/channels/{id}/test": {
    post: {
      path: {
        id: string;
      };
      query: Record<string, never>;
      requestBody: never;
      responses: {
        "200": {
          id: number;
          eventId: number | null;
          channelId: string;
          status: "pending" | "delivered" | "failed";
          attempts: number;
          nextAttemptAt: string | null;
          lastStatusCode: number | null;
          lastError: string | null;
          createdAt: string;
          finishedAt: string | null;
        };
        "401": {
          error: {
            /** kebab-case error code */
            code: string;
            message: string;
            requestId: string;
          };
        };
        "403": {
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
      };
    };
  };
  "/api/v1/alerts/events": {
    get: {
      path: Record<string, never>;
      query: {
        ruleId?: string;
        state?: "ok" | "pending" | "firing" | "resolved";
        from?: string;
        to?: string;
        before?: number;
        limit?: number;
      };
      requestBody: never;
      responses: {
        "200": {
          items: Array<{
            id: number;
            ruleId: string;
            ruleName: string;
            from: "ok" | "pending" | "firing" | "resolved";
            to: "ok" | "pending" | "firing" | "resolved";
            minute: string;
            value: number | null;
            threshold: number;
            silenced: boolean;
            evidence: {
              metric: string;
              value: number | null;
              comparison: string;
              threshold: number;
              window: {
                from: string;
                to: string;
              };
              dashboardUrl: string;
              traces: Array<{
                traceId: string;
                spanId: string;
                durationMs: number;
                status: string;
                url: string;
              }>;
              errorGroups: Array<{
                groupId: string;
                type: string;
                message: string;
                topFrames: Array<string>;
                url: string;
              }>;
            };
            deliveries: Array<{
              id: number;
              eventId: number | null;
              channelId: string;
              status: "pending" | "delivered" | "failed";
              attempts: number;
              nextAttemptAt: string | null;
              lastStatusCode: number | null;
              lastError: string | null;
              createdAt: string;
              finishedAt: string | null;
            }>;
          }>;
          nextBefore: number | null;
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
      };
    };
  };
  "/api/v1/alerts/export": {
    get: {
      path: Record<string, never>;
      query: {
        format?: "yaml" | "json";
      };
      requestBody: never;
      responses: {
        "200": string;
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
      };
    };
  };
  "/api/v1/alerts/preview": {
    post: {
      path: Record<string, never>;
      query: Record<string, never>;
      requestBody: {
        /** Shown in notifications and the dashboard. */
        name: string;
        /** error-rate: percent of requests that failed (0-100); request-rate: requests per minute; latency-p50/p95/p99: milliseconds; apdex: 0-1 at the service’s Apdex threshold; new-error-group: error groups first seen, or regressed, in the window. */
        metric: (("error-rate")) | (("request-rate")) | (("latency-p50")) | (("latency-p95")) | (("latency-p99")) | "apdex" | (("new-error-group"));
        /** The service watched (its entry spans; with `operation`, that operation’s spans). */
        service: string;
        /** Only this operation of the service. */
        operation?: string;
        /** Only this environment; every environment when left out. */
        environment?: string;
        /** Only occurrences of this tenant (error-rate, request-rate and latency; not with `operation`). */
        tenant?: string;
        /** The rule is breached when `value <comparison> threshold`. */
        comparison: ">" | ((">=")) | "<" | (("<="));
        threshold: number;
        /** Each minute the value is computed over the minutes ending with it. */
        windowMinutes: number;
        /** Breached this many minutes in a row (pending) before it fires; 0 fires at once. */
        forMinutes: number;
        /** Ids of the notification channels told when it fires and resolves. */
        channels: Array<string>;
      };
      responses: {
        "200": {
          from: string;
          to: string;
          threshold: number;
          points: Array<{
            minute: string;
            value: number | null;
          }>;
          /** When the rule fired (or would have) and resolved, replayed from ok at `from`. */
          firing: Array<{
            from: string;
            to: string | null;
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
        "403": {
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
      };
    };
  };
  "/api/v1/alerts/rules": {
    get: {
      path: Record<string, never>;
      query: Record<string, never>;
      requestBody: never;
      responses: {
        "200": {
          items: Array<{
            id: string;
            /** file: declared in ALERT_RULES_FILE, read-only here. */
            source: "api" | "file";
            rule: {
              /** Shown in notifications and the dashboard. */
              name: string;
              /** error-rate: percent of requests that failed (0-100); request-rate: requests per minute; latency-p50/p95/p99: milliseconds; apdex: 0-1 at the service’s Apdex threshold; new-error-group: error groups first seen, or regressed, in the window. */
              metric: (("error-rate")) | (("request-rate")) | (("latency-p50")) | (("latency-p95")) | (("latency-p99")) | "apdex" | (("new-error-group"));
              /** The service watched (its entry spans; with `operation`, that operation’s spans). */
              service: string;
              /** Only this operation of the service. */
              operation?: string;
              /** Only this environment; every environment when left out. */
              environment?: string;
              /** Only occurrences of this tenant (error-rate, request-rate and latency; not with `operation`). */
              tenant?: string;
              /** The rule is breached when `value <comparison> threshold`. */
              comparison: ">" | ((">=")) | "<" | (("<="));
              threshold: number;
              windowMinutes: number;
              forMinutes: number;
              channels: Array<string>;
            };
            state: {
              state: "ok" | "pending" | "firing" | "resolved";
              since: string | null;
              value: number | null;
              evaluatedAt: string | null;
            };
            /** The silence in force now, if any. */
            silence: {
              until: string;
              reason: string;
            } | null;
          }>;
          /** ALERT_RULES_FILE, when rules are declared in a file. */
          rulesFile: string | null;
        };
        "401": {
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
      path: Record<string, never>;
      query: Record<string, never>;
      requestBody: {
        /** Shown in notifications and the dashboard. */
        name: string;
        /** error-rate: percent of requests that failed (0-100); request-rate: requests per minute; latency-p50/p95/p99: milliseconds; apdex: 0-1 at the service’s Apdex threshold; new-error-group: error groups first seen, or regressed, in the window. */
        metric: (("error-rate")) | (("request-rate")) | (("latency-p50")) | (("latency-p95")) | (("latency-p99")) | "apdex" | (("new-error-group"));
        /** The service watched (its entry spans; with `operation`, that operation’s spans). */
        service: string;
        /** Only this operation of the service. */
        operation?: string;
        /** Only this environment; every environment when left out. */
        environment?: string;
        /** Only occurrences of this tenant (error-rate, request-rate and latency; not with `operation`). */
        tenant?: string;
        /** The rule is breached when `value <comparison> threshold`. */
        comparison: ">" | ((">=")) | "<" | (("<="));
        threshold: number;
        /** Each minute the value is computed over the minutes ending with it. */
        windowMinutes: number;
        /** Breached this many minutes in a row (pending) before it fires; 0 fires at once. */
        forMinutes: number;
        /** Ids of the notification channels told when it fires and resolves. */
        channels: Array<string>;
      };
      responses: {
        "201": {
          id: string;
          /** file: declared in ALERT_RULES_FILE, read-only here. */
          source: "api" | "file";
          rule: {
            /** Shown in notifications and the dashboard. */
            name: string;
            /** error-rate: percent of requests that failed (0-100); request-rate: requests per minute; latency-p50/p95/p99: milliseconds; apdex: 0-1 at the service’s Apdex threshold; new-error-group: error groups first seen, or regressed, in the window. */
            metric: (("error-rate")) | (("request-rate")) | (("latency-p50")) | (("latency-p95")) | (("latency-p99")) | "apdex" | (("new-error-group"));
            /** The service watched (its entry spans; with `operation`, that operation’s spans). */
            service: string;
            /** Only this operation of the service. */
            operation?: string;
            /** Only this environment; every environment when left out. */
            environment?: string;
            /** Only occurrences of this tenant (error-rate, request-rate and latency; not with `operation`). */
            tenant?: string;
            /** The rule is breached when `value <comparison> threshold`. */
            comparison: ">" | ((">=")) | "<" | (("<="));
            threshold: number;
            windowMinutes: number;
            forMinutes: number;
            channels: Array<string>;
          };
          state: {
            state: "ok" | "pending" | "firing" | "resolved";
            since: string | null;
            value: number | null;
            evaluatedAt: string | null;
          };
          /** The silence in force now, if any. */
          silence: {
            until: string;
            reason: string;
          } | null;
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
        "403": {
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
      };
    };
  };
  "/api/v1/alerts/rules/{id}": {
    get: {
      path: {
        id: string;
      };
      query: Record<string, never>;
      requestBody: never;
      responses: {
        "200": {
          id: string;
          /** file: declared in ALERT_RULES_FILE, read-only here. */
          source: "api" | "file";
          rule: {
            /** Shown in notifications and the dashboard. */
            name: string;
            /** error-rate: percent of requests that failed (0-100); request-rate: requests per minute; latency-p50/p95/p99: milliseconds; apdex: 0-1 at the service’s Apdex threshold; new-error-group: error groups first seen, or regressed, in the window. */
            metric: (("error-rate")) | (("request-rate")) | (("latency-p50")) | (("latency-p95")) | (("latency-p99")) | "apdex" | (("new-error-group"));
            /** The service watched (its entry spans; with `operation`, that operation’s spans). */
            service: string;
            /** Only this operation of the service. */
            operation?: string;
            /** Only this environment; every environment when left out. */
            environment?: string;
            /** Only occurrences of this tenant (error-rate, request-rate and latency; not with `operation`). */
            tenant?: string;
            /** The rule is breached when `value <comparison> threshold`. */
            comparison: ">" | ((">=")) | "<" | (("<="));
            threshold: number;
            windowMinutes: number;
            forMinutes: number;
            channels: Array<string>;
          };
          state: {
            state: "ok" | "pending" | "firing" | "resolved";
            since: string | null;
            value: number | null;
            evaluatedAt: string | null;
          };
          /** The silence in force now, if any. */
          silence: {
            until: string;
            reason: string;
          } | null;
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
      };
    };
    put: {
      path: {
        id: string;
      };
      query: Record<string, never>;
      requestBody: {
        /** Shown in notifications and the dashboard. */
        name: string;
        /** error-rate: percent of requests that failed (0-100); request-rate: requests per minute; latency-p50/p95/p99: milliseconds; apdex: 0-1 at the service’s Apdex threshold; new-error-group: error groups first seen, or regressed, in the window. */
        metric: (("error-rate")) | (("request-rate")) | (("latency-p50")) | (("latency-p95")) | (("latency-p99")) | "apdex" | (("new-error-group"));
        /** The service watched (its entry spans; with `operation`, that operation’s spans). */
        service: string;
        /** Only this operation of the service. */
        operation?: string;
        /** Only this environment; every environment when left out. */
        environment?: string;
        /** Only occurrences of this tenant (error-rate, request-rate and latency; not with `operation`). */
        tenant?: string;
        /** The rule is breached when `value <comparison> threshold`. */
        comparison: ">" | ((">=")) | "<" | (("<="));
        threshold: number;
        /** Each minute the value is computed over the minutes ending with it. */
        windowMinutes: number;
        /** Breached this many minutes in a row (pending) before it fires; 0 fires at once. */
        forMinutes: number;
        /** Ids of the notification channels told when it fires and resolves. */
        channels: Array<string>;
      };
      responses: {
        "200": {
          id: string;
          /** file: declared in ALERT_RULES_FILE, read-only here. */
          source: "api" | "file";
          rule: {
            /** Shown in notifications and the dashboard. */
            name: string;
            /** error-rate: percent of requests that failed (0-100); request-rate: requests per minute; latency-p50/p95/p99: milliseconds; apdex: 0-1 at the service’s Apdex threshold; new-error-group: error groups first seen, or regressed, in the window. */
            metric: (("error-rate")) | (("request-rate")) | (("latency-p50")) | (("latency-p95")) | (("latency-p99")) | "apdex" | (("new-error-group"));
            /** The service watched (its entry spans; with `operation`, that operation’s spans). */
            service: string;
            /** Only this operation of the service. */
            operation?: string;
            /** Only this environment; every environment when left out. */
            environment?: string;
            /** Only occurrences of this tenant (error-rate, request-rate and latency; not with `operation`). */
            tenant?: string;
            /** The rule is breached when `value <comparison> threshold`. */
            comparison: ">" | ((">=")) | "<" | (("<="));
            threshold: number;
            windowMinutes: number;
            forMinutes: number;
            channels: Array<string>;
          };
          state: {
            state: "ok" | "pending" | "firing" | "resolved";
            since: string | null;
            value: number | null;
            evaluatedAt: string | null;
          };
          /** The silence in force now, if any. */
          silence: {
            until: string;
            reason: string;
          } | null;
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
        "403": {
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
        "415": {
          error: {
            /** kebab-case error code */
            code: string;
            message: string;
            requestId: string;
          };
        };
      };
    };
    delete: {
      path: {
        id: string;
      };
      query: Record<string, never>;
      requestBody: never;
      responses: {
        "204": unknown;
        "401": {
          error: {
            /** kebab-case error code */
            code: string;
            message: string;
            requestId: string;
          };
        };
        "403": {
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
      };
    };
  };
  "/api/v1/alerts/rules/{id}/series": {
    get: {
      path: {
        id: string;
      };
      query: {
        hours?: number;
      };
      requestBody: never;
      responses: {
        "200": {
          from: string;
          to: string;
          threshold: number;
          points: Array<{
            minute: string;
            value: number | null;
          }>;
          /** When the rule fired (or would have) and resolved, replayed from ok at `from`. */
          firing: Array<{
            from: string;
            to: string | null;
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
      };
    };
  };
  "/api/v1/alerts/rules/{id}/silence": {
    post: {
      path: {
        id: string;
      };
      query: Record<string, never>;
      requestBody: {
        /** The silence ends then (notifications resume; transitions are stored meanwhile). */
        until: string;
        reason: string;
      };
      responses: {
        "201": {
          id: string;
          ruleId: string;
          until: string;
          reason: string;
          createdAt: string;
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
        "403": {
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
        "415": {
          error: {
            /** kebab-case error code */
            code: string;
            message: string;
            requestId: string;
          };
        };
      };
    };
    delete: {
      path: {
        id: string;
      };
      query: Record<string, never>;
      requestBody: never;
      responses: {
        "204": unknown;
        "401": {
          error: {
            /** kebab-case error code */
            code: string;
            message: string;
            requestId: string;
          };
        };
        "403": {
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
      };
    };
  };
  "/api/v1/auth/invitations/accept": {
    post: {
      path: Record<string, never>;
      query: Record<string, never>;
      requestBody: {
        token: string;
        name: string;
        /** 12 to 256 characters */
        password: string;
      };
      responses: {
        "200": {
          user: {
            id: string;
            email: string;
            name: string;
            /** admin or member */
            role: "admin" | "member";
          };
          csrfToken: string;
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
        "403": {
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
      };
    };
  };
  "/api/v1/auth/login": {
    post: {
      path: Record<string, never>;
      query: Record<string, never>;
      requestBody: {
        email: string;
        password: string;
      };
      responses: {
        "200": {
          user: {
            id: string;
            email: string;
            name: string;
            /** admin or member */
            role: "admin" | "member";
          };
          csrfToken: string;
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
        "403": {
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
  "/api/v1/auth/logout": {
    post: {
      path: Record<string, never>;
      query: Record<string, never>;
      requestBody: never;
      responses: {
        "200": {
          signedOut: true;
        };
        "401": {
          error: {
            /** kebab-case error code */
            code: string;
            message: string;
            requestId: string;
          };
        };
        "403": {
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
  "/api/v1/auth/password": {
    post: {
      path: Record<string, never>;
      query: Record<string, never>;
      requestBody: {
        currentPassword: string;
        /** 12 to 256 characters */
        newPassword: string;
      };
      responses: {
        "200": {
          user: {
            id: string;
            email: string;
            name: string;
            /** admin or member */
            role: "admin" | "member";
          };
          csrfToken: string;
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
        "403": {
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
  "/api/v1/auth/password-reset/confirm": {
    post: {
      path: Record<string, never>;
      query: Record<string, never>;
      requestBody: {
        token: string;
        /** 12 to 256 characters */
        password: string;
      };
      responses: {
        "200": {
          passwordReset: true;
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
        "403": {
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
  "/api/v1/auth/password-reset/request": {
    post: {
      path: Record<string, never>;
      query: Record<string, never>;
      requestBody: {
        email: string;
      };
      responses: {
        "202": {
          requested: true;
        };
        "400": {
          error: {
            /** kebab-case error code */
            code: string;
            message: string;
            requestId: string;
          };
        };
        "403": {
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
  "/api/v1/auth/session": {
    get: {
      path: Record<string, never>;
      query: Record<string, never>;
      requestBody: never;
      responses: {
        "200": {
          user: {
            id: string;
            email: string;
            name: string;
            /** admin or member */
            role: "admin" | "member";
          };
          csrfToken: string;
        };
        "401": {
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
  "/api/v1/auth/setup": {
    post: {
      path: Record<string, never>;
      query: Record<string, never>;
      requestBody: {
        email: string;
        /** 12 to 256 characters */
        password: string;
        name: string;
      };
      responses: {
        "200": {
          user: {
            id: string;
            email: string;
            name: string;
            /** admin or member */
            role: "admin" | "member";
          };
          csrfToken: string;
        };
        "400": {
          error: {
            /** kebab-case error code */
            code: string;
            message: string;
            requestId: string;
          };
        };
        "403": {
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
      };
    };
  };
  "/api/v1/database": {
    get: {
      path: Record<string, never>;
      query: {
        from?: string;
        to?: string;
        service?: string;
        environment?: string;
        limit?: number;
      };
      requestBody: never;
      responses: {
        "200": {
          from: string;
          to: string;
          /** Most total time first. */
          statements: Array<{
            system: string;
            /** Normalized: literals replaced by `?`. */
            statement: string;
            operation: string | null;
            count: number;
            errorCount: number;
            /** Sum of the durations (exact). */
            totalMs: number;
            p50Ms: number | null;
            p95Ms: number | null;
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
      };
    };
  };
  "/api/v1/dependencies": {
    get: {
      path: Record<string, never>;
      query: {
        from?: string;
        to?: string;
        service?: string;
        environment?: string;
      };
      requestBody: never;
      responses: {
        "200": {
          from: string;
          to: string;
          /** Busiest first; edges of equal counts by source, target and kind, in code-unit order. */
          edges: Array<{
            /** The calling service. */
            source: string;
            /** The called service, address or database system. */
            target: string;
            /** `service`, `address` or `database`. */
            targetKind: string;
            count: number;
            errorCount: number;
            p50Ms: number | null;
            p95Ms: number | null;
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
      };
    };
  };
  "/api/v1/errors": {
    get: {
      path: Record<string, never>;
      query: {
        from?: string;
        to?: string;
        service?: string;
        environment?: string;
        status?: "open" | "regressed" | "resolved" | "ignored" | "unresolved";
        sort?: "lastSeen" | "firstSeen" | "count";
        limit?: number;
        cursor?: string;
      };
      requestBody: never;
      responses: {
        "200": {
          range: {
            from: string;
            to: string;
          };
          trend: {
            start: string;
            /** Bucket size in ms. */
            intervalMs: number;
            buckets: number;
          };
          items: Array<components["schemas"]["ErrorGroupListItem"]>;
          limit: number;
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
      };
    };
  };
  "/api/v1/errors/{groupId}": {
    get: {
      path: {
        groupId: string;
      };
      query: {
        from?: string;
        to?: string;
        environment?: string;
      };
      requestBody: never;
      responses: {
        "200": {
          /** The fingerprint: 16 hexadecimal characters. */
          groupId: string;
          service: string;
          /** The error type; empty when the error named none. */
          type: string;
          /** The normalized message: quoted values, ids and numbers as `?`. */
          message: string;
          /** The top in-app stack frame, `function (dir/file)`; empty without a stack. */
          topFrame: string;
          exampleMessage: string | null;
          /** open; resolved (by a user); ignored (by a user: stays ignored when it recurs); regressed (resolved, then an occurrence started after the resolution). */
          status: "open" | "regressed" | "resolved" | "ignored";
          /** When a user last changed the status. */
          statusChangedAt: string | null;
          firstSeen: string;
          lastSeen: string;
          /** Occurrences since the group was first seen (within retention). */
          count: number;
          /** Occurrences in the range (and environment), counted per hour: an hour counts when any part of it lies in the range. */
          countInRange: number;
          /** Tenants with at least one occurrence (within retention). */
          tenantsAffected: number;
          /** The latest occurrence’s trace and span. */
          exampleTrace: {
            traceId: string;
            spanId: string;
          };
          range: {
            from: string;
            to: string;
          };
          /** Occurrences per bucket over the range, oldest first; empty buckets as zeros. */
          trend: Array<{
            start: string;
            count: number;
          }>;
          trendIntervalMs: number;
          /** Occurrences in the range per environment, most first. */
          environments: Array<{
            environment: string;
            count: number;
          }>;
          /** The most affected tenants (at most 20), most occurrences first. */
          tenants: Array<{
            tenantId: string;
            count: number;
            lastSeen: string;
          }>;
          /** The latest occurrences in the range (at most 20), newest first. */
          recentOccurrences: Array<components["schemas"]["Occurrence"]>;
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
      };
    };
  };
  "/api/v1/errors/{groupId}/status": {
    post: {
      path: {
        groupId: string;
      };
      query: Record<string, never>;
      requestBody: {
        /** resolved: a later occurrence marks it regressed; ignored: kept out of the unresolved list even when it recurs; open: reopened. */
        status: "open" | "resolved" | "ignored";
      };
      responses: {
        "200": {
          groupId: string;
          /** open; resolved (by a user); ignored (by a user: stays ignored when it recurs); regressed (resolved, then an occurrence started after the resolution). */
          status: "open" | "regressed" | "resolved" | "ignored";
          statusChangedAt: string;
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
        "403": {
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
        "415": {
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
  "/api/v1/health": {
    get: {
      path: Record<string, never>;
      query: Record<string, never>;
      requestBody: never;
      responses: {
        "200": {
          checkedAt: string;
          ingestion: {
            lastReceivedAt: string | null;
            /** Items accepted per minute over the last 15 minutes. */
            itemsPerMinute: number;
            /** Items accepted in the last 24 hours. */
            acceptedLast24h: number;
            /** Items refused in the last 24 hours (invalid, too old, or in a refused envelope). */
            refusedLast24h: number;
          } | null;
          storage: {
            /** Space the database uses (SQLite: the file; PostgreSQL: the schema’s tables and indexes). */
            sizeBytes: number;
            rows: {
              occurrences: number;
              operationRollups: number;
              tenantRollups: number;
              statementRollups: number;
              dependencyRollups: number;
            };
          } | null;
          retention: {
            /** Data older than this many days is pruned. */
            days: number;
            oldestOccurrenceAt: string | null;
          } | null;
          database: {
            dialect: "sqlite" | "postgres" | "clickhouse";
            status: "ok" | "unreachable";
            latencyMs: number | null;
            message: string | null;
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
      };
    };
  };
  "/api/v1/ingest": {
    post: {
      path: Record<string, never>;
      query: Record<string, never>;
      requestBody: {
        /** Protocol version; always 1. */
        protocol: 1;
        /** When the sender sent the envelope (RFC 3339). */
        sentAt: string;
        /** What sent the occurrences (OpenTelemetry resource). */
        resource: {
          /** service.name */
          service: string;
          /** deployment.environment.name */
          environment: string;
          /** service.version */
          version?: string;
          /** service.instance.id */
          instance?: string;
        };
        /** Up to 10,000 by default (the server's INGEST_MAX_OCCURRENCES); each is accepted or refused on its own. */
        occurrences: Array<{
          /** The sender's own identifier, kept for reference. */
          id?: string;
          /** W3C trace id: 32 hex digits, not all zero. */
          traceId: string;
          /** W3C span id: 16 hex digits, not all zero. */
          spanId: string;
          /** W3C span id: 16 hex digits, not all zero. */
          parentSpanId?: string;
          /** Span name, e.g. `GET /players/:id`. */
          operation: string;
          /** Span kind. */
          kind: "server" | "client" | "internal" | "producer" | "consumer";
          /** Start time (RFC 3339; fractional seconds allowed). */
          startedAt: string;
          /** Duration in milliseconds (fractions allowed), at most one day. */
          durationMs: number;
          /** Span status; OpenTelemetry UNSET maps to ok. */
          status: "ok" | "error";
          /** The customer the work was done for (usage is counted per tenant). */
          tenantId?: string;
          http?: {
            /** http.request.method */
            method: string;
            /** http.route (a template, not the raw path) */
            route?: string;
            /** http.response.status_code */
            statusCode?: number;
          };
          db?: {
            /** db.system.name, e.g. postgresql */
            system: string;
            /** db.query.text; the server groups by its normalized shape */
            statement?: string;
            /** db.operation.name, e.g. SELECT */
            operation?: string;
          };
          /** The remote side of a client or producer span; at least one member. */
          peer?: {
            /** peer.service */
            service?: string;
            /** server.address (host name or IP, optionally :port) */
            address?: string;
          };
          error?: {
            /** error.type / exception.type */
            type?: string;
            /** exception.message */
            message?: string;
            /** exception.stacktrace */
            stack?: string;
          };
          /** Other attributes: up to 64 scalar values. */
          attributes?: {
            [key: string]: string | number | boolean;
          };
        }>;
        /** Optional: log records of the same resource, up to 10,000 by default (the server's INGEST_MAX_LOG_RECORDS); each is accepted or refused on its own. Send an empty occurrences array with logs only. */
        logs?: Array<{
          /** When the event happened (RFC 3339; up to nanoseconds kept). Not older than the retention, at most an hour ahead. */
          time: string;
          /** When the sender observed it (default: time). */
          observedAt?: string;
          /** OpenTelemetry severity number: 1-4 trace, 5-8 debug, 9-12 info, 13-16 warn, 17-20 error, 21-24 fatal; 0 or absent: unspecified (then inferred from a level name in severityText). */
          severityNumber?: number;
          /** The level as the sender names it, e.g. INFO, Warning. */
          severityText?: string;
          /** The message: a string (at most 16,384 characters), or any JSON value (an object, an array, a number, a boolean) for structured logs, whose JSON text is at most 65,536 characters (longer: kept as that text, cut). */
          body?: unknown;
          /** OpenTelemetry event name, for records that are events. */
          eventName?: string;
          /** The logger (instrumentation scope). */
          scope?: {
            name?: string;
            version?: string;
          };
          /** W3C trace id: 32 hex digits, not all zero. */
          traceId?: string;
          /** W3C span id: 16 hex digits, not all zero. */
          spanId?: string;
          /** The customer the record concerns (usage is counted per tenant). */
          tenantId?: string;
          /** Other attributes: up to 64 scalar values. */
          attributes?: {
            [key: string]: string | number | boolean;
          };
        }>;
      };
      responses: {
        "202": {
          accepted: {
            /** occurrences stored (committed) */
            occurrences: number;
            /** log records stored (committed) */
            logs: number;
          };
          rejected: {
            /** occurrences refused; see errors */
            occurrences: number;
            /** log records refused; see errors */
            logs: number;
          };
          truncated: {
            /** strings cut to their bound (their items were kept) */
            strings: number;
          };
          /** occurrences first, then log records, each in index order */
          errors: Array<{
            /** present for a refused log record: index is then its position in `logs` */
            member?: "logs";
            /** position of the refused occurrence in the envelope (or of the log record, with member) */
            index: number;
            /** why it was refused */
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
  "/api/v1/logs": {
    get: {
      path: Record<string, never>;
      query: {
        from?: string;
        to?: string;
        service?: string;
        environment?: string;
        severity?: string;
        traceId?: string;
        q?: string;
        limit?: number;
        cursor?: string;
      };
      requestBody: never;
      responses: {
        "200": {
          /** Newest first. */
          items: Array<components["schemas"]["LogRecord"]>;
          /** The page size used (after the cap). */
          limit: number;
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
      };
    };
  };
  "/api/v1/logs/trend": {
    get: {
      path: Record<string, never>;
      query: {
        from?: string;
        to?: string;
        service?: string;
        environment?: string;
        severity?: string;
        traceId?: string;
        q?: string;
        interval?: "1m" | "5m" | "15m" | "30m" | "1h" | "3h" | "6h" | "12h" | "1d";
      };
      requestBody: never;
      responses: {
        "200": {
          from: string;
          to: string;
          /** The bucket size used. */
          interval: string;
          /** Every bucket of the range in time order; empty ones as zeros. */
          buckets: Array<{
            start: string;
            total: number;
            /** Records per named severity range. */
            counts: {
              unspecified: number;
              trace: number;
              debug: number;
              info: number;
              warn: number;
              error: number;
              fatal: number;
            };
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
      };
    };
  };
  "/api/v1/lookup/{id}": {
    get: {
      path: {
        id: string;
      };
      query: Record<string, never>;
      requestBody: never;
      responses: {
        "200": {
          /** What the id named. */
          kind: "trace" | "span";
          /** The trace to open. */
          traceId: string;
          spanId: string | null;
          occurrenceId: string | null;
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
      };
    };
  };
  "/api/v1/occurrences": {
    get: {
      path: Record<string, never>;
      query: {
        from?: string;
        to?: string;
        service?: string;
        environment?: string;
        operation?: string;
        status?: "ok" | "error";
        errorType?: string;
        httpStatusClass?: "1xx" | "2xx" | "3xx" | "4xx" | "5xx";
        minDurationMs?: number;
        maxDurationMs?: number;
        limit?: number;
        offset?: number;
      };
      requestBody: never;
      responses: {
        "200": {
          /** Newest first. */
          items: Array<components["schemas"]["Occurrence"]>;
          /** Occurrences matching the query (in the search window, when `search` is not null). */
          total: number;
          /** The page size used (after the cap). */
          limit: number;
          offset: number;
          search: {
            /** At most this many occurrences are checked (OCCURRENCE_SEARCH_WINDOW): the newest that the range and the indexed filters (service, environment, operation, status) select. */
            window: number;
            /** True when the range holds more than the window: older occurrences were not searched. */
            limited: boolean;
            /** When limited: the start of the oldest occurrence checked; null when the whole range was searched. */
            searchedFrom: string | null;
          } | null;
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
      };
    };
  };
  "/api/v1/occurrences/durations": {
    get: {
      path: Record<string, never>;
      query: {
        from?: string;
        to?: string;
        service?: string;
        environment?: string;
        operation?: string;
        status?: "ok" | "error";
        errorType?: string;
        httpStatusClass?: "1xx" | "2xx" | "3xx" | "4xx" | "5xx";
      };
      requestBody: never;
      responses: {
        "200": {
          from: string;
          to: string;
          /** Non-empty log-scale bins, ten per decade of milliseconds, shortest first. */
          bins: Array<{
            /** Lower bound, inclusive (rounded to the microsecond). */
            fromMs: number;
            /** Upper bound, exclusive. */
            toMs: number;
            count: number;
            errorCount: number;
          }>;
          /** Occurrences in the bins. */
          total: number;
          /** Present when a filter is checked on rows (attr., duration, errorType, httpStatusClass): how far the search went. Null otherwise (the total is exact over the range). */
          search: {
            /** At most this many occurrences are checked (OCCURRENCE_SEARCH_WINDOW): the newest that the range and the indexed filters (service, environment, operation, status) select. */
            window: number;
            /** True when the range holds more than the window: older occurrences were not searched. */
            limited: boolean;
            /** When limited: the start of the oldest occurrence checked; null when the whole range was searched. */
            searchedFrom: string | null;
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
      };
    };
  };
  "/api/v1/occurrences/{id}": {
    get: {
      path: {
        id: string;
      };
      query: Record<string, never>;
      requestBody: never;
      responses: {
        "200": {
          id: string;
          clientId: string | null;
          traceId: string;
          spanId: string;
          parentSpanId: string | null;
          service: string;
          environment: string;
          serviceVersion: string | null;
          instance: string | null;
          operation: string;
          kind: string;
          startedAt: string;
          durationMs: number;
          status: string;
          tenantId: string | null;
          http: {
            method: string | null;
            route: string | null;
            statusCode: number | null;
          } | null;
          db: {
            system: string | null;
            statement: string | null;
            operation: string | null;
          } | null;
          peer: {
            service: string | null;
            address: string | null;
          } | null;
          error: {
            type: string | null;
            message: string | null;
            stack: string | null;
          } | null;
          errorGroupId: string | null;
          attributes: {
            [key: string]: string | number | boolean;
          } | null;
          /** OTLP: the resource attributes other than service, environment, version and instance */
          resourceAttributes: {
            [key: string]: string | number | boolean;
          } | null;
          /** OTLP span events, in the order sent (exception events included) */
          events: Array<{
            name: string;
            time: string;
            /** From the span start to the event (fractions kept) */
            offsetMs: number;
            attributes: {
              [key: string]: string | number | boolean;
            } | null;
          }> | null;
          /** OTLP span links: spans of this or other traces this one relates to */
          links: Array<{
            traceId: string;
            spanId: string;
            traceState: string | null;
            attributes: {
              [key: string]: string | number | boolean;
            } | null;
          }> | null;
          receivedAt: string;
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
      };
    };
  };
  "/api/v1/operations": {
    get: {
      path: Record<string, never>;
      query: {
        from?: string;
        to?: string;
        service?: string;
        environment?: string;
        limit?: number;
        entry?: boolean;
      };
      requestBody: never;
      responses: {
        "200": {
          from: string;
          to: string;
          /** Per service, environment, operation, kind and entry: spans of every kind (the root spans of an internal operation in a service without entry spans form their own entry row); most occurrences first, ties by operation name. */
          operations: Array<{
            service: string;
            environment: string;
            /** The occurrence `operation`, e.g. `GET /orders/:id`. */
            operation: string;
            /** `server`, `client`, `internal`, `producer` or `consumer`. */
            kind: string;
            /** True when these spans are the ones the service’s figures count (entry spans, or the root internal spans of a service without entries); false for outgoing calls and internal child spans. */
            entry: boolean;
            /** Occurrences. */
            count: number;
            /** Occurrences with status error. */
            errorCount: number;
            /** errorCount / count; 0 without data. */
            errorRate: number;
            p50Ms: number | null;
            p95Ms: number | null;
            p99Ms: number | null;
            /** Apdex at the service’s threshold, for entry operations; null for the others. */
            apdex: number | null;
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
      };
    };
  };
  "/api/v1/services": {
    get: {
      path: Record<string, never>;
      query: {
        from?: string;
        to?: string;
        service?: string;
        environment?: string;
      };
      requestBody: never;
      responses: {
        "200": {
          from: string;
          to: string;
          services: Array<{
            service: string;
            environments: Array<string>;
            /** What the figures count: `entry` spans (server, consumer), `root` internal spans (the service has no entry span in the range), or `none` (only outgoing calls and child spans: zero figures). */
            countedSpans: "entry" | "root" | "none";
            /** Occurrences. */
            count: number;
            /** Occurrences with status error. */
            errorCount: number;
            /** errorCount / count; 0 without data. */
            errorRate: number;
            p50Ms: number | null;
            p95Ms: number | null;
            p99Ms: number | null;
            apdex: number | null;
            /** The service’s Apdex threshold T (PUT /api/v1/services/{service}/settings; default APDEX_THRESHOLD_MS). */
            apdexThresholdMs: number;
            /** Start of the service’s latest occurrence (of any kind) in the range. */
            lastSeenAt: string;
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
      };
    };
  };
  "/api/v1/services/{service}/settings": {
    get: {
      path: {
        service: string;
      };
      query: Record<string, never>;
      requestBody: never;
      responses: {
        "200": {
          service: string;
          /** Apdex threshold T in milliseconds (1 to 600000): an entry span is satisfied at or below T, tolerating up to 4T, frustrated above 4T or when it is an error. */
          apdexThresholdMs: number;
          /** True when the service uses the default (APDEX_THRESHOLD_MS), never set for it. */
          apdexThresholdIsDefault: boolean;
          /** When it was last changed; null for the default. */
          updatedAt: string | null;
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
      };
    };
    put: {
      path: {
        service: string;
      };
      query: Record<string, never>;
      requestBody: {
        /** Apdex threshold T in milliseconds (1 to 600000): an entry span is satisfied at or below T, tolerating up to 4T, frustrated above 4T or when it is an error. */
        apdexThresholdMs: number;
      };
      responses: {
        "200": {
          service: string;
          /** Apdex threshold T in milliseconds (1 to 600000): an entry span is satisfied at or below T, tolerating up to 4T, frustrated above 4T or when it is an error. */
          apdexThresholdMs: number;
          /** True when the service uses the default (APDEX_THRESHOLD_MS), never set for it. */
          apdexThresholdIsDefault: boolean;
          /** When it was last changed; null for the default. */
          updatedAt: string | null;
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
        "403": {
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
      };
    };
  };
  "/api/v1/summary": {
    get: {
      path: Record<string, never>;
      query: {
        from?: string;
        to?: string;
        service?: string;
        environment?: string;
      };
      requestBody: never;
      responses: {
        "200": {
          from: string;
          to: string;
          /** Occurrences. */
          count: number;
          /** Occurrences with status error. */
          errorCount: number;
          /** errorCount / count; 0 without data. */
          errorRate: number;
          p50Ms: number | null;
          p95Ms: number | null;
          p99Ms: number | null;
          averageMs: number | null;
          maxMs: number | null;
          /** Counted spans (requests) per minute over the range. */
          perMinute: number;
          /** Apdex over the counted spans, each service’s at its own threshold; null without data. */
          apdex: number | null;
          /** Services with data (spans of any kind) in the range. */
          services: number;
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
      };
    };
  };
  "/api/v1/traces/{traceId}": {
    get: {
      path: {
        traceId: string;
      };
      query: Record<string, never>;
      requestBody: never;
      responses: {
        "200": {
          traceId: string;
          startedAt: string;
          /** From the first start to the last end. */
          durationMs: number;
          /** Services involved, in waterfall order. */
          services: Array<string>;
          /** Occurrences stored for the trace. */
          spanCount: number;
          /** True when the trace has more spans than are returned. */
          truncated: boolean;
          /** Depth-first, children in start order: the rows of a waterfall. */
          spans: Array<components["schemas"]["Occurrence"] & {
            /** 0 for roots and for spans whose parent is missing. */
            depth: number;
            /** From the trace start to this span’s start. */
            offsetMs: number;
            /** The span names a parent that is not in the trace. */
            parentMissing: boolean;
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
      };
    };
  };
  "/api/v1/traces/{traceId}/logs": {
    get: {
      path: {
        traceId: string;
      };
      query: Record<string, never>;
      requestBody: never;
      responses: {
        "200": {
          traceId: string;
          /** Earliest first; at most 1000. */
          items: Array<components["schemas"]["LogRecord"]>;
          /** True when the trace has more records than are returned. */
          truncated: boolean;
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
      };
    };
  };
  "/api/v1/trend": {
    get: {
      path: Record<string, never>;
      query: {
        from?: string;
        to?: string;
        service?: string;
        environment?: string;
        interval?: "1m" | "5m" | "15m" | "30m" | "1h" | "3h" | "6h" | "12h" | "1d";
      };
      requestBody: never;
      responses: {
        "200": {
          from: string;
          to: string;
          /** The bucket size used. */
          interval: string;
          /** Every bucket of the range in time order; empty ones as zeros. */
          buckets: Array<{
            start: string;
            /** Occurrences. */
            count: number;
            /** Occurrences with status error. */
            errorCount: number;
            /** errorCount / count; 0 without data. */
            errorRate: number;
            p50Ms: number | null;
            p95Ms: number | null;
            p99Ms: number | null;
            apdex: number | null;
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
      };
    };
  };
  "/api/v1/usage": {
    get: {
      path: Record<string, never>;
      query: {
        from?: string;
        to?: string;
        service?: string;
        environment?: string;
        tenantId?: string;
      };
      requestBody: never;
      responses: {
        "200": {
          from: string;
          to: string;
          /** Most occurrences first (then most log records); occurrences and log records without a tenantId are not counted. */
          tenants: Array<{
            tenantId: string;
            occurrences: number;
            /** Occurrences with status error. */
            errors: number;
            /** Sum of the occurrences’ durations. */
            totalDurationMs: number;
            /** Log records. */
            logs: number;
            /** Services that served the tenant. */
            services: Array<string>;
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
      };
    };
  };
  "/api/v1/usage/export": {
    get: {
      path: Record<string, never>;
      query: {
        from?: string;
        to?: string;
        service?: string;
        environment?: string;
        tenantId?: string;
        interval?: "1m" | "5m" | "15m" | "30m" | "1h" | "3h" | "6h" | "12h" | "1d";
        format?: "csv" | "json";
      };
      requestBody: never;
      responses: {
        "200": {
          /** By period, then tenant, service, environment. */
          rows: Array<{
            periodStart: string;
            tenantId: string;
            service: string;
            environment: string;
            occurrences: number;
            /** Occurrences with status error. */
            errors: number;
            /** Sum of the occurrences’ durations. */
            totalDurationMs: number;
            /** Log records. */
            logs: number;
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
      };
    };
  };
  "/api/v1/usage/trend": {
    get: {
      path: Record<string, never>;
      query: {
        from?: string;
        to?: string;
        service?: string;
        environment?: string;
        tenantId?: string;
        interval?: "1m" | "5m" | "15m" | "30m" | "1h" | "3h" | "6h" | "12h" | "1d";
      };
      requestBody: never;
      responses: {
        "200": {
          from: string;
          to: string;
          interval: string;
          /** Every bucket in time order; empty ones as zeros. */
          buckets: Array<{
            start: string;
            occurrences: number;
            /** Occurrences with status error. */
            errors: number;
            /** Sum of the occurrences’ durations. */
            totalDurationMs: number;
            /** Log records. */
            logs: number;
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
      };
    };
  };
}

export interface components {
  schemas: {
    "ErrorGroupListItem": {
      /** The fingerprint: 16 hexadecimal characters. */
      groupId: string;
      service: string;
      /** The error type; empty when the error named none. */
      type: string;
      /** The normalized message: quoted values, ids and numbers as `?`. */
      message: string;
      /** The top in-app stack frame, `function (dir/file)`; empty without a stack. */
      topFrame: string;
      exampleMessage: string | null;
      /** open; resolved (by a user); ignored (by a user: stays ignored when it recurs); regressed (resolved, then an occurrence started after the resolution). */
      status: "open" | "regressed" | "resolved" | "ignored";
      /** When a user last changed the status. */
      statusChangedAt: string | null;
      firstSeen: string;
      lastSeen: string;
      /** Occurrences since the group was first seen (within retention). */
      count: number;
      /** Occurrences in the range (and environment), counted per hour: an hour counts when any part of it lies in the range. */
      countInRange: number;
      /** Tenants with at least one occurrence (within retention). */
      tenantsAffected: number;
      /** The latest occurrence’s trace and span. */
      exampleTrace: {
        traceId: string;
        spanId: string;
      };
      /** Occurrences per bucket of the response’s trend layout, oldest first. */
      trend: Array<number>;
    };
    "ErrorResponse": {
      error: {
        /** kebab-case error code */
        code: string;
        message: string;
        requestId: string;
      };
    };
    "LogRecord": {
      /** Assigned by the service; ids sort as the records’ times do. */
      id: string;
      time: string;
      /** The time exactly, in nanoseconds since the epoch (a decimal string). */
      timeUnixNano: string;
      observedAt: string;
      /** OpenTelemetry severity number; 0 unspecified. */
      severityNumber: number;
      /** The named range of severityNumber (unspecified for 0). */
      severity: "unspecified" | "trace" | "debug" | "info" | "warn" | "error" | "fatal";
      severityText: string | null;
      /** The message: a string, a structured value (object, array, number, boolean), or null. */
      body: unknown;
      eventName: string | null;
      service: string;
      environment: string;
      serviceVersion: string | null;
      instance: string | null;
      scope: {
        name: string | null;
        version: string | null;
      } | null;
      traceId: string | null;
      spanId: string | null;
      /** W3C trace flags (1: sampled). */
      traceFlags: number;
      tenantId: string | null;
      attributes: {
        [key: string]: string | number | boolean;
      } | null;
      /** The resource attributes other than service, environment, version and instance */
      resourceAttributes: {
        [key: string]: string | number | boolean;
      } | null;
      receivedAt: string;
    };
    "Occurrence": {
      id: string;
      clientId: string | null;
      traceId: string;
      spanId: string;
      parentSpanId: string | null;
      service: string;
      environment: string;
      serviceVersion: string | null;
      instance: string | null;
      operation: string;
      kind: string;
      startedAt: string;
      durationMs: number;
      status: string;
      tenantId: string | null;
      http: {
        method: string | null;
        route: string | null;
        statusCode: number | null;
      } | null;
      db: {
        system: string | null;
        statement: string | null;
        operation: string | null;
      } | null;
      peer: {
        service: string | null;
        address: string | null;
      } | null;
      error: {
        type: string | null;
        message: string | null;
        stack: string | null;
      } | null;
      errorGroupId: string | null;
      attributes: {
        [key: string]: string | number | boolean;
      } | null;
      /** OTLP: the resource attributes other than service, environment, version and instance */
      resourceAttributes: {
        [key: string]: string | number | boolean;
      } | null;
      /** OTLP span events, in the order sent (exception events included) */
      events: Array<{
        name: string;
        time: string;
        /** From the span start to the event (fractions kept) */
        offsetMs: number;
        attributes: {
          [key: string]: string | number | boolean;
        } | null;
      }> | null;
      /** OTLP span links: spans of this or other traces this one relates to */
      links: Array<{
        traceId: string;
        spanId: string;
        traceState: string | null;
        attributes: {
          [key: string]: string | number | boolean;
        } | null;
      }> | null;
      receivedAt: string;
    };
    "OtlpStatus": {
      /** gRPC status code (informative; the HTTP status is what clients act on) */
      code: number;
      message: string;
      /** google.rpc.ErrorInfo (reason: the error code, metadata.requestId), google.rpc.RetryInfo when retryable, google.rpc.BadRequest for bad data */
      details: Array<{
        "@type": string;
        [key: string]: unknown;
      }>;
    };
  };
}
