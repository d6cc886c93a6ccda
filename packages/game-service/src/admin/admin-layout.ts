import { html, type Html } from './html.js';
import { csrfFieldName, type AdminSession } from './admin-session.js';
import { formatScore, type ScoreFormat } from '../manifest/score-format.js';

const navigation: ReadonlyArray<{ href: string; label: string }> = [
  { href: '/admin/', label: 'Overview' },
  { href: '/admin/games', label: 'Games' },
  { href: '/admin/players', label: 'Players' },
  { href: '/admin/audit', label: 'Audit' },
  { href: '/admin/manifest', label: 'Manifest' },
  { href: '/admin/adapters', label: 'Adapters' },
  { href: '/admin/health', label: 'Health' },
];

/** A notice shown above a page's content. */
export interface Notice {
  kind: 'error' | 'success';
  text: string;
}

/** The hidden CSRF field every form carries. */
export function csrfField(token: string): Html {
  return html`<input type="hidden" name="${csrfFieldName}" value="${token}">`;
}

/** A whole admin page: header with navigation (when signed in), notice, content. */
export function adminPage(options: { title: string; path: string; session: AdminSession | null; notice?: Notice | undefined; body: Html }): Html {
  const { title, path, session, notice, body } = options;
  const nav = session
    ? html`<nav aria-label="Admin">${navigation.map(
        (item) => html` <a href="${item.href}"${item.href === path ? html` aria-current="page"` : ''}>${item.label}</a>`,
      )}</nav>
      <form method="post" action="/admin/logout">${csrfField(session.csrfToken)}<button type="submit">Sign out ${session.user.name}</button></form>`
    : '';
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · Game service admin</title>
<link rel="stylesheet" href="/admin/assets/admin.css">
</head>
<body>
<header class="top"><a class="brand" href="/admin/">Game service admin</a>${nav}</header>
<main>
<h1>${title}</h1>
${notice ? html`<div class="notice ${notice.kind}" role="${notice.kind === 'error' ? 'alert' : 'status'}">${notice.text}</div>` : ''}
${body}
</main>
</body>
</html>`;
}

/** ISO 8601 (UTC, milliseconds) of an epoch-millisecond time, or an em dash. */
export function isoTime(ms: number | null | undefined): string {
  return ms === null || ms === undefined ? '—' : new Date(ms).toISOString();
}

const humanUnits: ReadonlyArray<{ ms: number; unit: string }> = [
  { ms: 86_400_000, unit: 'd' },
  { ms: 3_600_000, unit: 'h' },
  { ms: 60_000, unit: 'min' },
  { ms: 1_000, unit: 's' },
];
/** Past this, a time reads better as its date than as a distance. */
const humanDistanceLimitMs = 30 * 86_400_000;

/** A time as people read it (`5 min ago`, `in 2 h`, or its date when far), relative to `now`. */
export function humanTime(ms: number, now: number): string {
  const distance = Math.abs(now - ms);
  if (distance >= humanDistanceLimitMs) return new Date(ms).toISOString().slice(0, 10);
  if (distance < 1_000) return 'just now';
  const { ms: size, unit } = humanUnits.find((u) => distance >= u.ms)!;
  const amount = `${Math.floor(distance / size)} ${unit}`;
  return ms <= now ? `${amount} ago` : `in ${amount}`;
}

/** A time element: humanized, with the exact ISO time on hover and in `datetime`; an em dash for none. */
export function timeCell(ms: number | null | undefined, now: number): Html {
  if (ms === null || ms === undefined) return html`—`;
  const iso = new Date(ms).toISOString();
  return html`<time datetime="${iso}" title="${iso}">${humanTime(ms, now)}</time>`;
}

/** The admin page of a player. */
export function playerPath(gameId: string, playerId: string): string {
  return `/admin/games/${encodeURIComponent(gameId)}/players/${encodeURIComponent(playerId)}`;
}

/** A player's name linked to their page (the id on hover). */
export function playerLink(gameId: string, playerId: string, displayName: string | undefined): Html {
  return html`<a href="${playerPath(gameId, playerId)}" title="${playerId}">${displayName ?? playerId}</a>`;
}

/** A score as its board declares (`format`, `unit`); the exact stored number on hover when the two differ. */
export function scoreText(score: number, board: { format?: ScoreFormat | undefined; unit?: string | undefined } | undefined): Html {
  const shown = formatScore(score, board?.format, board?.unit);
  return shown === String(score) ? html`${shown}` : html`<span title="${String(score)}">${shown}</span>`;
}
