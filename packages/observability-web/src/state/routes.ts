/** Client routes: pattern matching on the path, pure so it can be unit-tested. */

export type RouteParams = Record<string, string>;

/** Matches `/services/:name` style patterns; returns the decoded parameters, or undefined. */
export function matchRoute(pattern: string, pathname: string): RouteParams | undefined {
  const patternParts = pattern.split('/').filter(Boolean);
  const pathParts = pathname.replace(/\/+$/, '').split('/').filter(Boolean);
  if (patternParts.length !== pathParts.length) return undefined;
  const params: RouteParams = {};
  for (let i = 0; i < patternParts.length; i += 1) {
    const expected = patternParts[i]!;
    const actual = pathParts[i]!;
    if (expected.startsWith(':')) {
      try {
        params[expected.slice(1)] = decodeURIComponent(actual);
      } catch {
        return undefined;
      }
    } else if (expected !== actual) {
      return undefined;
    }
  }
  return params;
}

/**
 * Where to go after signing in: only a path on this site (starting with one `/`), so a crafted
 * `next` parameter cannot send the user to another origin.
 */
export function safeNextPath(next: string | null | undefined): string {
  if (!next || !next.startsWith('/') || next.startsWith('//') || next.startsWith('/\\')) return '/';
  return next;
}
