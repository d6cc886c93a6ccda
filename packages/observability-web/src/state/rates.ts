/** Occurrences per minute over an echoed range (`from`/`to` as the service answered them). */
export function perMinute(count: number, range: { from: string; to: string }): number {
  const minutes = (Date.parse(range.to) - Date.parse(range.from)) / 60_000;
  return minutes > 0 ? count / minutes : 0;
}
