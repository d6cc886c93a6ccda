/**
 * W3C Trace Context for the calls the library makes: each call carries a `traceparent`, so the
 * game service's spans of that call join one trace the device started (and the game can log).
 */

/** What a game passes as `traceContext`: on (the default), off, or the `traceparent` of its own context per call. */
export type TraceContextOption = boolean | ((call: { method: string; path: string }) => string | undefined);

const traceparentPattern = /^00-(?!0{32})[0-9a-f]{32}-(?!0{16})[0-9a-f]{16}-[0-9a-f]{2}$/;

function randomHex(bytes: number): string {
  const values = crypto.getRandomValues(new Uint8Array(bytes));
  return Array.from(values, (value) => value.toString(16).padStart(2, '0')).join('');
}

/**
 * The `traceparent` for one call: a new trace (random ids; sampled with probability
 * `sampleRate`), the game's own (a malformed one is not sent), or none when tracing is off.
 */
export function traceparentFor(option: TraceContextOption, sampleRate: number, random: () => number, call: { method: string; path: string }): string | undefined {
  if (option === false) return undefined;
  if (typeof option === 'function') {
    const given = option(call);
    return given !== undefined && traceparentPattern.test(given) ? given : undefined;
  }
  return `00-${randomHex(16)}-${randomHex(8)}-${random() < sampleRate ? '01' : '00'}`;
}
