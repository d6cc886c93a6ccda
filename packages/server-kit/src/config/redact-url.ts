/** Query parameters that carry credentials in database and cache URLs (libpq's `password`, say). */
const credentialParameter = /pass|secret|token|key/i;

/**
 * A URL safe to print: its password, and query parameters that look like credentials, become
 * `***`. Anything that is not a URL comes back unchanged (it holds no URL credentials to hide).
 */
export function redactUrl(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return value;
  }
  if (!url.password && ![...url.searchParams.keys()].some((key) => credentialParameter.test(key))) return value;
  if (url.password) url.password = '***';
  for (const key of [...url.searchParams.keys()]) if (credentialParameter.test(key)) url.searchParams.set(key, '***');
  return url.toString();
}
