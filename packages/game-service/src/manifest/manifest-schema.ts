import { Type, type Static } from '@sinclair/typebox';
import { ScoreFormat, ScoreUnit } from './score-format.js';
import { defaultMetadataMaxBytes, maxMetadataValues, metadataMaxBytesLimit } from './metadata-bounds.js';

/** Characters allowed in game, adapter and board ids: they appear unescaped in URL paths. */
const idPattern = '^[A-Za-z0-9._~-]+$';

export const gameIdMinLength = 2;
export const gameIdMaxLength = 48;
export const adapterIdMaxLength = 80;
export const boardIdMaxLength = 80;

const GameId = Type.String({ minLength: gameIdMinLength, maxLength: gameIdMaxLength, pattern: idPattern });
const AdapterId = Type.String({ minLength: 1, maxLength: adapterIdMaxLength, pattern: idPattern });
const BoardId = Type.String({ minLength: 1, maxLength: boardIdMaxLength, pattern: idPattern });
const Name = Type.String({ minLength: 1, maxLength: 200 });

/**
 * The server posts the value of the variable `clientSecretEnv` names to the OAuth endpoint, so a
 * manifest may only name variables meant for that: `*_CLIENT_SECRET`, never GAME_TOKEN_SECRET,
 * DATABASE_URL or any other of the server's own.
 */
export const clientSecretEnvPattern = '^[A-Z][A-Z0-9_]*_CLIENT_SECRET$';
export const clientSecretEnvMaxLength = 128;

/** An ISO 8601 time with a zone (`Z` or `+01:00`); the check also requires a whole minute. */
export const eventTimePattern = '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}(:\\d{2}(\\.\\d{1,3})?)?(Z|[+-]\\d{2}:\\d{2})$';

/** Readable reasons for the patterns above, in place of the validator's "must match pattern". */
export const patternReasons: Readonly<Record<string, string>> = {
  [eventTimePattern]: 'must be an ISO 8601 time with a zone, e.g. 2026-11-27T18:00:00Z',
  [clientSecretEnvPattern]:
    'must name an environment variable ending in _CLIENT_SECRET (A-Z, 0-9 and _, starting with a letter), e.g. GALAXY_GOOGLE_CLIENT_SECRET; the server sends its value to the OAuth provider, so no other variable may be named',
};

export const DevAuthSettings = Type.Object(
  { provider: Type.Literal('dev') },
  { additionalProperties: false, description: 'codes `dev:<name>`, accepted only when GAME_DEV_AUTH=1' },
);

export const GooglePlayGamesAuthSettings = Type.Object(
  {
    provider: Type.Literal('google-play-games'),
    clientId: Type.String({ minLength: 1, maxLength: 512, description: 'OAuth client id of the game server' }),
    clientSecretEnv: Type.String({
      maxLength: clientSecretEnvMaxLength,
      pattern: clientSecretEnvPattern,
      description:
        'name of the environment variable holding the client secret (never the secret itself); it must end in _CLIENT_SECRET, e.g. GALAXY_GOOGLE_CLIENT_SECRET',
    }),
    applicationId: Type.String({ minLength: 1, maxLength: 64, pattern: '^[0-9A-Za-z_-]+$', description: 'Play Games application id' }),
  },
  { additionalProperties: false },
);

export const AuthSettings = Type.Union([DevAuthSettings, GooglePlayGamesAuthSettings]);
export type AuthSettings = Static<typeof AuthSettings>;
export type ProviderId = AuthSettings['provider'];

export const AdapterBinding = Type.Object(
  {
    type: Type.String({ minLength: 1, maxLength: 80, description: 'adapter type id, see /admin/adapters' }),
    options: Type.Optional(Type.Record(Type.String(), Type.Unknown(), { description: "checked against the type's options schema" })),
    enabled: Type.Optional(
      Type.Boolean({ description: 'false refuses new runs (404 adapter-not-found) while its boards keep their entries; default true' }),
    ),
  },
  { additionalProperties: false },
);
export type AdapterBinding = Static<typeof AdapterBinding>;

export const Period = Type.Union([Type.Literal('all'), Type.Literal('daily'), Type.Literal('weekly'), Type.Literal('monthly'), Type.Literal('event')]);
export type Period = Static<typeof Period>;

const EventTime = Type.String({ maxLength: 40, pattern: eventTimePattern });
export const maxEventHours = 24 * 366;
export const maxEventDays = 366;
export const maxEntrantsLimit = 100_000_000;

const EventSpan = Type.Object(
  {
    days: Type.Optional(Type.Integer({ minimum: 1, maximum: maxEventDays })),
    hours: Type.Optional(Type.Integer({ minimum: 1, maximum: maxEventHours })),
  },
  { additionalProperties: false, description: 'exactly one of days or hours' },
);

export const BoardEventSettings = Type.Object(
  {
    startsAt: Type.Optional(EventTime),
    endsAt: Type.Optional(EventTime),
    anchor: Type.Optional(EventTime),
    every: Type.Optional(EventSpan),
    lasts: Type.Optional(EventSpan),
    maxEntrants: Type.Optional(
      Type.Integer({ minimum: 1, maximum: maxEntrantsLimit, description: 'new players beyond this many entries in a window are refused on the board; entrants still improve' }),
    ),
  },
  {
    additionalProperties: false,
    description:
      'a time-boxed board: one window (startsAt, endsAt) or a window every N days or hours from anchor (every, anchor, optional lasts); times on whole minutes. Runs outside a window do not score on the board; at its end a window\'s standings freeze. The board keeps the `event` period.',
  },
);
export type BoardEventSettings = Static<typeof BoardEventSettings>;

const OutputName = Type.String({ minLength: 1, maxLength: 80, description: "one of the source adapter type's outputs" });

export const BoardSubscore = Type.Object(
  {
    value: OutputName,
    order: Type.Union([Type.Literal('asc'), Type.Literal('desc')], { description: "desc: higher is better, whatever the score's order" }),
  },
  {
    additionalProperties: false,
    description:
      "a tie-break: an output of the same adapter result as the score, in its own order, ranking entries tied on the score before their time. Not on sum boards. An entry's subscore is the one of the run it stands for (a best board's best run, a latest board's latest); entries recorded before the board declared it have 0",
  },
);
export type BoardSubscore = Static<typeof BoardSubscore>;

export const BoardMetadata = Type.Object(
  {
    values: Type.Array(OutputName, { minItems: 1, maxItems: maxMetadataValues, uniqueItems: true, description: "outputs of the source adapter's result kept with each entry" }),
    maxBytes: Type.Optional(
      Type.Integer({
        minimum: 16,
        maximum: metadataMaxBytesLimit,
        description: `most bytes the kept outputs may take as JSON (default ${defaultMetadataMaxBytes}); the manifest is refused when its values could take more`,
      }),
    ),
  },
  {
    additionalProperties: false,
    description:
      "small metadata returned with each entry: the named outputs of the run the entry stands for (a best board's best run, a latest or sum board's latest), as a JSON object of numbers",
  },
);
export type BoardMetadata = Static<typeof BoardMetadata>;

export const BoardDefinition = Type.Object(
  {
    id: BoardId,
    name: Name,
    order: Type.Union([Type.Literal('asc'), Type.Literal('desc')], { description: 'desc: higher is better' }),
    operator: Type.Union([Type.Literal('best'), Type.Literal('latest'), Type.Literal('sum')], {
      description: "how a player's runs combine into one entry",
    }),
    periods: Type.Array(Period, { minItems: 1, uniqueItems: true, description: 'periods this board keeps (`event`: each window of its event)' }),
    event: Type.Optional(BoardEventSettings),
    format: Type.Optional(ScoreFormat),
    unit: Type.Optional(ScoreUnit),
    subscore: Type.Optional(BoardSubscore),
    metadata: Type.Optional(BoardMetadata),
    source: Type.Object(
      {
        adapter: AdapterId,
        value: Type.String({ minLength: 1, maxLength: 80, description: "one of the adapter type's outputs" }),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false },
);
export type BoardDefinition = Static<typeof BoardDefinition>;

export const GameDefinition = Type.Object(
  {
    id: GameId,
    name: Name,
    auth: AuthSettings,
    adapters: Type.Record(Type.String(), AdapterBinding, { description: 'adapter id -> type and options' }),
    boards: Type.Array(BoardDefinition),
  },
  { additionalProperties: false },
);
export type GameDefinition = Static<typeof GameDefinition>;

export const Manifest = Type.Object(
  {
    $schema: Type.Optional(Type.String()),
    description: Type.Optional(Type.String({ maxLength: 2000 })),
    games: Type.Array(GameDefinition, { minItems: 1 }),
  },
  { additionalProperties: false },
);
export type Manifest = Static<typeof Manifest>;

/** Adapter ids are the keys of `adapters`, so their bounds are checked beside the schema. */
export const adapterIdRule = { pattern: new RegExp(idPattern), maxLength: adapterIdMaxLength };
