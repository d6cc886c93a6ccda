import { html, type Html } from './html.js';
import { csrfFieldName, type AdminSession } from './admin-session.js';

const navigation: ReadonlyArray<{ href: string; label: string }> = [
  { href: '/admin/', label: 'Overview' },
  { href: '/admin/games', label: 'Games' },
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
