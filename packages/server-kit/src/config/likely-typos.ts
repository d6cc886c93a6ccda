/** An environment variable the service does not read that looks meant for one it does. */
export interface LikelyTypo {
  readonly variable: string;
  readonly meant: string;
}

/**
 * Edits (insert, delete, substitute, swap two neighbours) allowed between a set variable and a
 * known one for it to count as a typo: short names differ from unrelated ones in few letters
 * (`HOME` and `HOST`), so only long names may be two edits away.
 */
function allowedEdits(name: string): number {
  if (name.length >= 8) return 2;
  if (name.length >= 5) return 1;
  return 0;
}

/** Optimal string alignment distance (Damerau-Levenshtein without repeated edits of a substring). */
function editDistance(a: string, b: string): number {
  const rows = a.length + 1;
  const columns = b.length + 1;
  const d: number[][] = Array.from({ length: rows }, (_, i) => Array.from({ length: columns }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i < rows; i++) {
    for (let j = 1; j < columns; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, d[i - 2]![j - 2]! + 1);
      d[i]![j] = best;
    }
  }
  return d[a.length]![b.length]!;
}

/** The known name fewest edits from `name`, if within what both names' lengths allow. */
function closest(name: string, known: readonly string[]): string | undefined {
  let best: { name: string; edits: number } | undefined;
  for (const candidate of known) {
    const edits = editDistance(name, candidate);
    if (edits <= Math.min(allowedEdits(name), allowedEdits(candidate)) && (!best || edits < best.edits)) best = { name: candidate, edits };
  }
  return best?.name;
}

/**
 * The set variables that are not among `known` but look like a mistake for one that is: the
 * same name in another case (`game_port`), a few letters off (`GAME_PROT`, `REDIS_URI`), or the
 * last word of a known name alone (`PORT` for `GAME_PORT`, the name platforms set by habit).
 * Everything else in the environment (PATH, HOME, other programs' variables) is left alone.
 */
export function likelyTypos(env: Readonly<Record<string, string | undefined>>, known: readonly string[]): LikelyTypo[] {
  const knownSet = new Set(known);
  const typos: LikelyTypo[] = [];
  for (const variable of Object.keys(env)) {
    if (knownSet.has(variable) || env[variable] === undefined) continue;
    const upper = variable.toUpperCase();
    const meant =
      known.find((name) => name === upper) ??
      closest(upper, known) ??
      (upper.length >= 4 && !upper.includes('_') ? known.find((name) => name.endsWith(`_${upper}`)) : undefined);
    if (meant) typos.push({ variable, meant });
  }
  return typos;
}
