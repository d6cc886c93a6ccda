/**
 * The one-time token of a mailed or shared link (password reset, invitation). Links carry it in
 * the fragment (`#token=…`), which browsers never send to servers or in Referer headers; a
 * `?token=` query is accepted too.
 */
export function linkToken(hash: string, search: URLSearchParams): string | undefined {
  const fromHash = new URLSearchParams(hash.replace(/^#/, '')).get('token');
  return fromHash || search.get('token') || undefined;
}
