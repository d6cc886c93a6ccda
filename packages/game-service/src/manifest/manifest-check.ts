import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { Type, type TSchema } from '@sinclair/typebox';
import {
  adapterIdRule,
  DevAuthSettings,
  GooglePlayGamesAuthSettings,
  Manifest,
  patternReasons,
} from './manifest-schema.js';
import { checkBoardEvent } from './board-event-check.js';
import { defaultMetadataMaxBytes, maxNumberJsonBytes, metadataMaxBytesLimit, worstMetadataBytes } from './metadata-bounds.js';

/** One thing wrong with a manifest: where (`games[0].boards[1].order`) and why. */
export interface ManifestProblem {
  readonly path: string;
  readonly reason: string;
}

/** What the manifest needs to know of an adapter type (the runs feature's registry provides more). */
export interface AdapterTypeInfo {
  readonly id: string;
  readonly optionsSchema: TSchema;
  readonly outputs: readonly string[];
}

export type ManifestCheck = { ok: true; manifest: Manifest } | { ok: false; problems: ManifestProblem[] };

const authSchemaByProvider: Readonly<Record<string, TSchema>> = {
  dev: DevAuthSettings,
  'google-play-games': GooglePlayGamesAuthSettings,
};

/**
 * The manifest's schema with `auth` loosened to "an object naming a known provider": a union
 * reports every branch's complaints, so each game's auth is checked against its own provider's
 * schema afterwards, and the problems stay readable.
 */
const ShapeSchema = (() => {
  const game = Manifest.properties.games.items;
  const looseAuth = Type.Object(
    { provider: Type.Union(Object.keys(authSchemaByProvider).map((id) => Type.Literal(id))) },
    { additionalProperties: true },
  );
  return Type.Object(
    { ...Manifest.properties, games: Type.Array(Type.Object({ ...game.properties, auth: looseAuth }, { additionalProperties: false }), { minItems: 1 }) },
    { additionalProperties: false },
  );
})();

const ajv = new Ajv({ allErrors: true, strict: false });
const checkShape = ajv.compile(ShapeSchema);
const checkAuth = Object.fromEntries(Object.entries(authSchemaByProvider).map(([id, schema]) => [id, ajv.compile(schema)]));
const optionsValidators = new WeakMap<object, ValidateFunction>();

function optionsValidator(type: AdapterTypeInfo): ValidateFunction {
  let validate = optionsValidators.get(type.optionsSchema);
  if (!validate) {
    validate = ajv.compile(type.optionsSchema);
    optionsValidators.set(type.optionsSchema, validate);
  }
  return validate;
}

/** `/games/0/boards/1` under `base` -> `base.games[0].boards[1]`. */
function pathOf(base: string, pointer: string, member?: string): string {
  let path = base;
  for (const raw of pointer.split('/').slice(1)) {
    const part = raw.replaceAll('~1', '/').replaceAll('~0', '~');
    path += /^\d+$/.test(part) ? `[${part}]` : path ? `.${part}` : part;
  }
  if (member !== undefined) path += path ? `.${member}` : member;
  return path || '(document)';
}

function problemsFrom(errors: readonly ErrorObject[] | null | undefined, base: string): ManifestProblem[] {
  const problems: ManifestProblem[] = [];
  for (const error of errors ?? []) {
    const params = error.params as Record<string, unknown>;
    if (error.keyword === 'required') {
      problems.push({ path: pathOf(base, error.instancePath, String(params.missingProperty)), reason: 'is required' });
    } else if (error.keyword === 'additionalProperties') {
      problems.push({ path: pathOf(base, error.instancePath, String(params.additionalProperty)), reason: 'is not a known member' });
    } else if (error.keyword === 'enum' || error.keyword === 'const') {
      const allowed = (params.allowedValues as unknown[] | undefined) ?? [params.allowedValue];
      problems.push({ path: pathOf(base, error.instancePath), reason: `must be one of ${allowed.map((v) => JSON.stringify(v)).join(', ')}` });
    } else if (error.keyword === 'pattern' && Object.hasOwn(patternReasons, String(params.pattern))) {
      problems.push({ path: pathOf(base, error.instancePath), reason: patternReasons[String(params.pattern)]! });
    } else if (error.keyword === 'anyOf') {
      // The literals' own `const` errors, just reported for the same path, already say it.
      continue;
    } else {
      problems.push({ path: pathOf(base, error.instancePath), reason: error.message ?? 'is invalid' });
    }
  }
  return mergeConstProblems(problems);
}

/** A union of literals yields one `const` error per literal; fold them into one problem per path. */
function mergeConstProblems(problems: ManifestProblem[]): ManifestProblem[] {
  const out: ManifestProblem[] = [];
  for (const problem of problems) {
    const previous = out.findLast((p) => p.path === problem.path);
    if (previous && previous.reason.startsWith('must be one of ') && problem.reason.startsWith('must be one of ')) {
      out[out.indexOf(previous)] = { path: problem.path, reason: `${previous.reason}, ${problem.reason.slice('must be one of '.length)}` };
    } else {
      out.push(problem);
    }
  }
  return out;
}

type Loose = Record<string, unknown>;

function isObject(value: unknown): value is Loose {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Items whose `id` is a string and already appeared earlier in the list. */
function duplicateIds(items: readonly unknown[]): Array<{ index: number; first: number; id: string }> {
  const seen = new Map<string, number>();
  const found: Array<{ index: number; first: number; id: string }> = [];
  items.forEach((item, index) => {
    if (!isObject(item) || typeof item.id !== 'string') return;
    const first = seen.get(item.id);
    if (first === undefined) seen.set(item.id, index);
    else found.push({ index, first, id: item.id });
  });
  return found;
}

/**
 * What a schema cannot say about one game. It reads the game defensively, as the shape check
 * may have failed elsewhere: every problem is reported in one pass, not one per attempt.
 */
function checkGame(game: Loose, at: string, adapterTypes: ReadonlyMap<string, AdapterTypeInfo>): ManifestProblem[] {
  const problems: ManifestProblem[] = [];
  const auth = game.auth;
  const validateAuth = isObject(auth) && typeof auth.provider === 'string' ? checkAuth[auth.provider] : undefined;
  if (validateAuth && !validateAuth(auth)) problems.push(...problemsFrom(validateAuth.errors, `${at}.auth`));

  const adapters = isObject(game.adapters) ? game.adapters : {};
  for (const [adapterId, binding] of Object.entries(adapters)) {
    const adapterAt = `${at}.adapters.${adapterId}`;
    if (adapterId.length > adapterIdRule.maxLength || !adapterIdRule.pattern.test(adapterId)) {
      problems.push({ path: adapterAt, reason: `adapter ids are 1 to ${adapterIdRule.maxLength} of A-Z a-z 0-9 . _ ~ -` });
    }
    if (!isObject(binding) || typeof binding.type !== 'string') continue;
    const type = adapterTypes.get(binding.type);
    if (!type) {
      problems.push({ path: `${adapterAt}.type`, reason: `unknown adapter type "${binding.type}"; known: ${[...adapterTypes.keys()].join(', ')}` });
      continue;
    }
    const options = binding.options ?? {};
    if (!isObject(options)) continue;
    const validateOptions = optionsValidator(type);
    if (!validateOptions(structuredClone(options))) problems.push(...problemsFrom(validateOptions.errors, `${adapterAt}.options`));
  }

  const boards = Array.isArray(game.boards) ? game.boards : [];
  for (const dup of duplicateIds(boards)) {
    problems.push({ path: `${at}.boards[${dup.index}].id`, reason: `duplicate board id "${dup.id}" (also boards[${dup.first}])` });
  }
  boards.forEach((board: unknown, index) => {
    if (isObject(board)) problems.push(...checkBoardEvent(board, `${at}.boards[${index}]`), ...checkBoardExtras(board, `${at}.boards[${index}]`));
    const source = isObject(board) ? board.source : undefined;
    if (!isObject(source) || typeof source.adapter !== 'string') return;
    const sourceAt = `${at}.boards[${index}].source`;
    const binding = Object.hasOwn(adapters, source.adapter) ? adapters[source.adapter] : undefined;
    if (!binding) {
      problems.push({ path: `${sourceAt}.adapter`, reason: `"${source.adapter}" is not one of this game's adapters` });
      return;
    }
    const type = isObject(binding) && typeof binding.type === 'string' ? adapterTypes.get(binding.type) : undefined;
    if (!type) return;
    const noOutput = (path: string, value: unknown) => {
      if (typeof value === 'string' && !type.outputs.includes(value)) {
        problems.push({ path, reason: `adapter type "${type.id}" has no output "${value}"; its outputs: ${type.outputs.join(', ')}` });
      }
    };
    noOutput(`${sourceAt}.value`, source.value);
    const boardAt = `${at}.boards[${index}]`;
    if (isObject(board) && isObject(board.subscore)) noOutput(`${boardAt}.subscore.value`, board.subscore.value);
    if (isObject(board) && isObject(board.metadata) && Array.isArray(board.metadata.values)) {
      board.metadata.values.forEach((value: unknown, i) => noOutput(`${boardAt}.metadata.values[${i}]`, value));
    }
  });
  return problems;
}

/**
 * What the schema cannot say of a board's subscore and metadata: a sum board has no subscore
 * (its entry adds many runs; no one run's subscore stands for it), and metadata whose values
 * could take more JSON bytes than the board allows is refused here rather than at a run.
 */
function checkBoardExtras(board: Loose, at: string): ManifestProblem[] {
  const problems: ManifestProblem[] = [];
  if (board.subscore !== undefined && board.operator === 'sum') {
    problems.push({ path: `${at}.subscore`, reason: 'a sum board cannot have a subscore: its entry adds many runs, and no one run\'s subscore stands for the sum' });
  }
  const metadata = board.metadata;
  if (isObject(metadata) && Array.isArray(metadata.values) && metadata.values.every((v) => typeof v === 'string')) {
    const maxBytes = typeof metadata.maxBytes === 'number' ? metadata.maxBytes : defaultMetadataMaxBytes;
    const worst = worstMetadataBytes(metadata.values as string[]);
    if (worst > maxBytes) {
      problems.push({
        path: `${at}.metadata`,
        reason: `its values can take up to ${worst} bytes of JSON (names and numbers of up to ${maxNumberJsonBytes} characters), more than maxBytes ${maxBytes}: keep fewer values or raise maxBytes (at most ${metadataMaxBytesLimit})`,
      });
    }
  }
  return problems;
}

/**
 * Checks a manifest document completely: its shape, and what a schema cannot say (unique ids,
 * adapter types that exist, options their type accepts, board sources, subscores and metadata
 * that name real outputs, event windows and schedules that make sense, no subscore on a sum
 * board, metadata that fits its bound).
 * Every problem is listed, not just the first.
 */
export function checkManifest(document: unknown, adapterTypes: ReadonlyMap<string, AdapterTypeInfo>): ManifestCheck {
  const problems = checkShape(document) ? [] : problemsFrom(checkShape.errors, '');
  const games = isObject(document) && Array.isArray(document.games) ? document.games : [];
  for (const dup of duplicateIds(games)) {
    problems.push({ path: `games[${dup.index}].id`, reason: `duplicate game id "${dup.id}" (also games[${dup.first}])` });
  }
  games.forEach((game: unknown, index) => {
    if (isObject(game)) problems.push(...checkGame(game, `games[${index}]`, adapterTypes));
  });
  return problems.length > 0 ? { ok: false, problems } : { ok: true, manifest: document as Manifest };
}
