import type { TSchema } from '@sinclair/typebox';

/** A derived value: every adapter output is a finite number a board can rank by. */
export type DerivedResult = Readonly<Record<string, number>>;

/** A client-side candidate hint that disagreed with what the server derived. */
export interface HintMismatch {
  /** The output the hint claimed, e.g. `score`. */
  readonly name: string;
  readonly claimed: unknown;
  readonly derived: number | null;
}

/** The outcome of deriving a run: an authoritative result, or a refusal with its reason. */
export type Derivation =
  | { readonly ok: true; readonly result: DerivedResult; readonly hintMismatches: readonly HintMismatch[] }
  | { readonly ok: false; readonly reason: string };

/** What `derive` may look at besides the evidence. Nothing here may vary between replays. */
export interface DeriveContext<Options> {
  /** The game's options for this adapter, already validated against `optionsSchema`. */
  readonly options: Options;
}

/**
 * A kind of evidence the server knows how to judge. The manifest binds a game's adapter ids to
 * these types (with options); boards name one of `outputs` as their source value.
 *
 * `derive` is pure and deterministic: the same payload and options give the same derivation,
 * always, so a run can be re-judged later and concurrent duplicates agree.
 */
export interface AdapterType<Options = unknown, Payload = unknown> {
  readonly id: string;
  /** Bumped when the derivation of the same evidence could change; stored with every run. */
  readonly version: number;
  readonly description: string;
  /** Schema of the manifest's `options` for this type; every member has a default or is optional. */
  readonly optionsSchema: TSchema;
  /** Schema of the submitted `payload`; checked before `derive` sees it, shown to operators. */
  readonly payloadSchema: TSchema;
  /** Names of the derived values, the ones a board's `source.value` may name. */
  readonly outputs: readonly string[];
  derive(payload: Payload, context: DeriveContext<Options>): Derivation;
}
