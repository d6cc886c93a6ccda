import type { AdapterType } from '../runs/adapters/adapter-type.js';
import type { GameDefinition } from '../manifest/manifest-schema.js';
import { runStatuses, type RunRecord } from '../runs/run-record.js';
import { csrfField, isoTime, playerLink, scoreText, timeCell } from './admin-layout.js';
import { html, type Html } from './html.js';
import type { AdminHealth, AdminOverview, BoardTop, GameActivity, GameSummary, InvitationCreated, RunsView } from './admin-data.js';
import { activityCharts } from './admin-charts.js';

/** The fields a sign-in or registration form is re-shown with after a problem (never the password). */
export interface FormValues {
  email?: string | undefined;
  name?: string | undefined;
  invitation?: string | undefined;
  next?: string | undefined;
}

export function loginBody(csrfToken: string, values: FormValues): Html {
  return html`<div class="card narrow">
<form method="post" action="/admin/login">
${csrfField(csrfToken)}
<input type="hidden" name="next" value="${values.next ?? ''}">
<label for="email">Email</label><input id="email" type="email" name="email" required autocomplete="username" value="${values.email ?? ''}">
<label for="password">Password</label><input id="password" type="password" name="password" required autocomplete="current-password">
<p><button type="submit">Sign in</button></p>
</form>
<p class="muted">No account yet? <a href="/admin/register">Register</a> (the first administrator registers freely; later ones need an invitation).</p>
</div>`;
}

export function registerBody(csrfToken: string, needsInvitation: boolean, values: FormValues): Html {
  return html`<div class="card narrow">
<form method="post" action="/admin/register">
${csrfField(csrfToken)}
${needsInvitation
  ? html`<label for="invitation">Invitation token</label><input id="invitation" type="text" name="invitation" required value="${values.invitation ?? ''}">`
  : html`<p class="muted">No administrator exists yet: this account will be the first.</p>`}
<label for="name">Name</label><input id="name" type="text" name="name" required maxlength="100" value="${values.name ?? ''}">
<label for="email">Email</label><input id="email" type="email" name="email" required autocomplete="username" value="${values.email ?? ''}">
<label for="password">Password (12 characters or more)</label><input id="password" type="password" name="password" required minlength="12" autocomplete="new-password">
<p><button type="submit">Register</button></p>
</form>
<p class="muted">Have an account? <a href="/admin/login">Sign in</a></p>
</div>`;
}

function tile(label: string, value: number | string): Html {
  return html`<div class="tile"><div class="label">${label}</div><div class="value">${value}</div></div>`;
}

function healthBadge(ready: boolean): Html {
  return ready ? html`<span class="badge ok">ready</span>` : html`<span class="badge failing">not ready</span>`;
}

export function overviewBody(data: AdminOverview, csrfToken: string, created: InvitationCreated | undefined): Html {
  return html`<div class="tiles">
${tile('Games', data.games)}${tile('Players', data.players)}${tile('Runs today (UTC)', data.runsToday)}${tile('Flagged runs', data.flaggedRuns)}
<div class="tile"><div class="label">Service</div><div class="value">${healthBadge(data.health.ready)}</div></div>
</div>
${data.health.failing.length > 0
  ? html`<div class="card"><h2>Failing checks</h2><ul>${data.health.failing.map((f) => html`<li><strong>${f.check}</strong>: ${f.reason}</li>`)}</ul></div>`
  : ''}
<div class="card">
<h2>Invite an administrator</h2>
${created
  ? html`<div class="notice success" role="status">Invitation for ${created.email} created. Give them this token (shown once), valid until ${isoTime(created.expiresAt)}:<br><code>${created.token}</code></div>`
  : ''}
<form class="inline" method="post" action="/admin/invitations">
${csrfField(csrfToken)}
<div><label for="invite-email">Email</label><input id="invite-email" type="email" name="email" required></div>
<button type="submit">Create invitation</button>
</form>
${data.invitations.length > 0
  ? html`<table><thead><tr><th>Email</th><th>Created</th><th>Expires</th><th>Accepted</th></tr></thead><tbody>
${data.invitations.map((i) => html`<tr><td>${i.email}</td><td>${isoTime(i.createdAt)}</td><td>${isoTime(i.expiresAt)}</td><td>${isoTime(i.acceptedAt)}</td></tr>`)}
</tbody></table>`
  : ''}
</div>`;
}

export function gamesBody(games: readonly GameSummary[]): Html {
  return html`<div class="card"><table class="stack">
<thead><tr><th>Game</th><th>Provider</th><th class="num">Players</th><th class="num">Accepted runs</th><th class="num">Flagged</th><th class="num">Rejected</th><th>Boards</th></tr></thead>
<tbody>${games.map(
    (g) => html`<tr><td data-label="Game"><a href="/admin/games/${encodeURIComponent(g.id)}">${g.name}</a> <span class="muted">${g.id}</span></td>
<td data-label="Provider">${g.provider}</td><td class="num" data-label="Players">${g.players}</td><td class="num" data-label="Accepted runs">${g.runs.accepted}</td><td class="num" data-label="Flagged">${g.runs.flagged}</td><td class="num" data-label="Rejected">${g.runs.rejected}</td>
<td data-label="Boards">${g.boards.join(', ')}</td></tr>`,
  )}</tbody></table></div>`;
}

export function gameBody(game: GameDefinition, activity: GameActivity, boards: readonly BoardTop[], now: number): Html {
  const gamePath = `/admin/games/${encodeURIComponent(game.id)}`;
  return html`<p><a href="${gamePath}/runs">Recent runs of ${game.name} →</a></p>
${activityCharts(activity)}
<div class="card"><h2>Provider</h2><p>${game.auth.provider}</p></div>
<div class="card"><h2>Adapters</h2><table><thead><tr><th>Adapter id</th><th>Type</th><th>Options</th></tr></thead><tbody>
${Object.entries(game.adapters).map(
  ([id, binding]) => html`<tr><td>${id}</td><td><a href="/admin/adapters">${binding.type}</a></td><td><code>${JSON.stringify(binding.options ?? {})}</code></td></tr>`,
)}
</tbody></table></div>
${boards.map(
  (board) => html`<div class="card"><h2>${board.name} <span class="muted">${board.id} · ${board.order} · ${board.operator} · ${board.format ?? 'integer'}${board.unit ? ` (${board.unit})` : ''}</span></h2>
<form class="inline" method="get" action="${gamePath}">
<label for="period-${board.id}">Period</label>
<select id="period-${board.id}" name="period">${board.periods.map((p) => html`<option value="${p}"${p === board.period ? html` selected` : ''}>${p}</option>`)}</select>
<button type="submit">Show</button></form>
<p class="muted">Period ${board.periodKey}${board.event ? html`, ${board.event.state}: ${timeCell(Date.parse(board.event.startsAt), now)} to ${timeCell(Date.parse(board.event.endsAt), now)}` : ''}.</p>
${board.entries.length === 0
  ? html`<p class="muted">No entries yet.</p>`
  : html`<table><thead><tr><th class="num">Rank</th><th>Player</th><th class="num">Score</th>${board.subscore ? html`<th class="num" title="tie-break, ${board.subscore.order}">${board.subscore.value}</th>` : ''}${board.metadata ? html`<th>Metadata</th>` : ''}<th>Achieved</th></tr></thead><tbody>
${board.entries.map(
  (e) => html`<tr><td class="num">${e.rank}</td><td>${playerLink(game.id, e.playerId, e.displayName)}</td><td class="num">${scoreText(e.score, board)}</td>${board.subscore ? html`<td class="num">${(e.subscore ?? 0).toLocaleString('en-US')}</td>` : ''}${board.metadata ? html`<td>${e.metadata ? html`<code>${JSON.stringify(e.metadata)}</code>` : html`<span class="muted">—</span>`}</td>` : ''}<td>${timeCell(Date.parse(e.achievedAt), now)}</td></tr>`,
)}
</tbody></table>`}
</div>`,
)}`;
}

function runRow(run: RunRecord, names: ReadonlyMap<string, string>, now: number): Html {
  const name = names.get(`${run.gameId}:${run.playerId}`);
  return html`<tr>
<td class="num" data-label="#">${run.id}</td><td data-label="Run id"><code>${run.runId}</code></td><td data-label="Received">${timeCell(run.createdAt, now)}</td>
<td data-label="Status"><span class="badge ${run.status}">${run.status}</span>${run.review ? html` <span class="muted">${run.review}</span>` : ''}</td>
<td data-label="Player">${name !== undefined ? playerLink(run.gameId, run.playerId, name) : html`<code>${run.playerId}</code>`}</td><td data-label="Adapter">${run.adapterId} <span class="muted">${run.adapterType} v${run.adapterVersion}</span></td>
<td data-label="Result">${run.result ? html`<code>${JSON.stringify(run.result)}</code>` : html`<span class="muted">${run.rejectionReason ?? '—'}</span>`}
${run.hintMismatches.length > 0 ? html`<br><strong>Hint mismatch:</strong> <code>${JSON.stringify(run.hintMismatches)}</code>` : ''}</td>
<td class="evidence" data-label="Evidence"><details><summary>evidence</summary><pre>${JSON.stringify(run.payload, null, 2)}</pre></details></td>
</tr>`;
}

export function runsBody(view: RunsView, now: number): Html {
  const names = new Map(Object.entries(view.playerNames));
  const base = `/admin/games/${encodeURIComponent(view.gameId)}/runs`;
  const nextQuery = new URLSearchParams();
  if (view.filter.status) nextQuery.set('status', view.filter.status);
  if (view.filter.player) nextQuery.set('player', view.filter.player);
  if (view.nextBefore !== null) nextQuery.set('before', String(view.nextBefore));
  return html`<div class="card"><form class="inline" method="get" action="${base}">
<div><label for="status">Status</label><select id="status" name="status">
<option value="">any</option>${runStatuses.map(
    (s) => html`<option value="${s}"${view.filter.status === s ? html` selected` : ''}>${s}</option>`,
  )}</select></div>
<div><label for="player">Player id</label><input id="player" type="text" name="player" value="${view.filter.player ?? ''}"></div>
<button type="submit">Filter</button></form></div>
<div class="card">${view.runs.length === 0
    ? html`<p class="muted">No runs match.</p>`
    : html`<table class="runs stack"><thead><tr><th class="num">#</th><th>Run id</th><th>Received</th><th>Status</th><th>Player</th><th>Adapter</th><th>Result</th><th>Evidence</th></tr></thead>
<tbody>${view.runs.map((run) => runRow(run, names, now))}</tbody></table>`}
${view.nextBefore !== null ? html`<p><a href="${base}?${nextQuery.toString()}">Older runs →</a></p>` : ''}
</div>`;
}

export function adaptersBody(adapters: ReadonlyArray<{ type: AdapterType; usedBy: ReadonlyArray<{ gameId: string; adapterId: string }> }>): Html {
  return html`${adapters.map(
    ({ type, usedBy }) => html`<div class="card"><h2>${type.id} <span class="muted">version ${type.version}</span></h2>
<p>${type.description}</p>
<p><strong>Derived values:</strong> ${type.outputs.join(', ')}</p>
<p><strong>Used by:</strong> ${usedBy.length === 0 ? html`<span class="muted">no game</span>` : usedBy.map((u, i) => html`${i > 0 ? ', ' : ''}<a href="/admin/games/${encodeURIComponent(u.gameId)}">${u.gameId}</a> (${u.adapterId})`)}</p>
<details><summary>Payload schema</summary><pre>${JSON.stringify(type.payloadSchema, null, 2)}</pre></details>
</div>`,
  )}`;
}

export function healthBody(health: AdminHealth): Html {
  return html`<div class="tiles">
<div class="tile"><div class="label">Readiness</div><div class="value">${healthBadge(health.ready)}</div></div>
${tile('Uptime (s)', health.uptimeSeconds)}${tile('Version', health.version.version)}${tile('Commit', health.version.commit)}
</div>
<div class="card"><table><thead><tr><th>Check</th><th>State</th></tr></thead><tbody>
${health.checks.map((c) => html`<tr><td>${c.check}</td><td>${c.ok ? html`<span class="badge ok">ok</span>` : html`<span class="badge failing">${c.reason}</span>`}</td></tr>`)}
<tr><td>database dialect</td><td>${health.database}</td></tr>
<tr><td>redis</td><td>${health.redis}</td></tr>
<tr><td>node</td><td>${health.node}</td></tr>
<tr><td>API version</td><td>${health.version.apiVersion}</td></tr>
</tbody></table></div>`;
}
