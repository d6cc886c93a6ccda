import type { GameDefinition } from '../manifest/manifest-schema.js';
import type { AuditEntry, PlayerView } from '../moderation/moderation-service.js';
import type { PlayerRecord } from '../players/player-service.js';
import type { RunRecord } from '../runs/run-record.js';
import { csrfField, playerLink, playerPath, scoreText, timeCell } from './admin-layout.js';
import { html, type Html } from './html.js';

/** The longest reason an operator can give for an action. */
export const maxReasonLength = 500;

function reasonField(id: string): Html {
  return html`<div><label for="${id}">Reason</label><input id="${id}" type="text" name="reason" required maxlength="${maxReasonLength}" placeholder="why (kept in the audit log)"></div>`;
}

export function playerSearchBody(games: readonly GameDefinition[], query: { q: string; game: string }, found: readonly PlayerRecord[] | undefined, now: number): Html {
  const names = new Map(games.map((g) => [g.id, g.name]));
  return html`<div class="card"><form class="inline" method="get" action="/admin/players">
<div class="grow"><label for="q">Player id, display name or provider identity</label><input id="q" type="text" name="q" value="${query.q}" required maxlength="200"></div>
<div><label for="game">Game</label><select id="game" name="game"><option value="">any</option>${games.map(
    (g) => html`<option value="${g.id}"${g.id === query.game ? html` selected` : ''}>${g.name}</option>`,
  )}</select></div>
<button type="submit">Find</button></form></div>
${found === undefined
  ? ''
  : html`<div class="card">${found.length === 0
      ? html`<p class="muted">No player matches “${query.q}”.</p>`
      : html`<table class="stack"><thead><tr><th>Player</th><th>Game</th><th>Provider identity</th><th>Last seen</th><th>Since</th></tr></thead><tbody>
${found.map(
  (p) => html`<tr><td data-label="Player">${playerLink(p.gameId, p.id, p.displayName)}</td><td data-label="Game">${names.get(p.gameId) ?? p.gameId}</td><td data-label="Identity">${p.provider} <code>${p.providerSubject}</code></td>
<td data-label="Last seen">${timeCell(p.lastSeenAt, now)}</td><td data-label="Since">${timeCell(p.createdAt, now)}</td></tr>`,
)}</tbody></table>`}</div>`}`;
}

function hidingBadge(view: PlayerView, now: number): Html {
  if (!view.hiding) return html`<span class="badge ok">visible</span>`;
  return html`<span class="badge failing">hidden${view.hiding.shadow ? ' (shadow)' : ''}</span>${view.hiding.hiddenUntil === null ? '' : html` until ${timeCell(view.hiding.hiddenUntil, now)}`}`;
}

function actionsCard(view: PlayerView, csrf: string): Html {
  const base = playerPath(view.player.gameId, view.player.id);
  const visibility = view.hiding
    ? html`<form class="inline" method="post" action="${base}/unhide">${csrfField(csrf)}${reasonField('unhide-reason')}<button type="submit">Unhide</button></form>`
    : html`<form class="inline" method="post" action="${base}/hide">${csrfField(csrf)}${reasonField('hide-reason')}
<div><label for="hide-until">Until (UTC, optional)</label><input id="hide-until" type="datetime-local" name="until"></div>
<div><label class="check"><input type="checkbox" name="shadow" value="yes"> Shadow mode</label></div>
<button type="submit">Hide from every board</button></form>
<p class="muted">Hidden, the player's entries leave every board and period at once; in shadow mode the player still sees their own entry and rank.</p>`;
  return html`<div class="card"><h2>Actions</h2>
${visibility}
<form class="inline" method="post" action="${base}/revoke-sessions">${csrfField(csrf)}${reasonField('revoke-reason')}<button type="submit">Revoke sessions</button></form>
<form class="inline" method="post" action="${base}/erase">${csrfField(csrf)}${reasonField('erase-reason')}
<div><label class="check"><input type="checkbox" name="confirm" value="yes" required> Erase all their data</label></div>
<button type="submit" class="danger">Erase player</button></form>
</div>`;
}

function entriesCard(view: PlayerView, game: GameDefinition, csrf: string, now: number): Html {
  const base = playerPath(view.player.gameId, view.player.id);
  const boards = new Map(game.boards.map((b) => [b.id, b]));
  return html`<div class="card"><h2>Entries</h2>${view.entries.length === 0
    ? html`<p class="muted">No entry on any board.</p>`
    : html`<table class="stack"><thead><tr><th>Board</th><th>Period</th><th class="num">Score</th><th class="num">Rank</th><th>Achieved</th><th>Remove</th></tr></thead><tbody>
${view.entries.map(
  (e) => html`<tr><td data-label="Board">${e.boardId}</td><td data-label="Period">${e.period}</td><td class="num" data-label="Score">${scoreText(e.score, boards.get(e.boardId))}</td><td class="num" data-label="Rank">${e.rank ?? html`<span class="muted">hidden</span>`}</td><td data-label="Achieved">${timeCell(e.achievedAt, now)}</td>
<td data-label="Remove"><form class="inline compact" method="post" action="${base}/entries/remove">${csrfField(csrf)}<input type="hidden" name="boardId" value="${e.boardId}"><input type="hidden" name="period" value="${e.period}">
<input type="text" name="reason" required maxlength="${maxReasonLength}" placeholder="reason" aria-label="Reason to remove ${e.boardId} ${e.period}"><button type="submit">Remove</button></form></td></tr>`,
)}</tbody></table>`}</div>`;
}

function reviewCell(run: RunRecord, csrf: string): Html {
  if (run.review) return html`<span class="badge ${run.review === 'kept' ? 'accepted' : 'rejected'}">${run.review}</span>`;
  if (run.status !== 'flagged') return html``;
  return html`<form class="inline compact" method="post" action="/admin/games/${encodeURIComponent(run.gameId)}/runs/${run.id}/review">${csrfField(csrf)}
<input type="text" name="reason" required maxlength="${maxReasonLength}" placeholder="reason" aria-label="Reason for the review of run ${run.id}">
<button type="submit" name="decision" value="kept">Keep</button><button type="submit" name="decision" value="rejected" class="danger">Reject</button></form>`;
}

function runsCard(view: PlayerView, csrf: string, now: number): Html {
  return html`<div class="card"><h2>Runs <span class="muted">(newest ${view.runs.length})</span></h2>${view.runs.length === 0
    ? html`<p class="muted">No runs.</p>`
    : html`<table class="stack"><thead><tr><th class="num">#</th><th>Run id</th><th>Received</th><th>Status</th><th>Result</th><th>Review</th></tr></thead><tbody>
${view.runs.map(
  (run) => html`<tr><td class="num" data-label="#">${run.id}</td><td data-label="Run id"><code>${run.runId}</code></td><td data-label="Received">${timeCell(run.createdAt, now)}</td><td data-label="Status"><span class="badge ${run.status}">${run.status}</span></td>
<td data-label="Result">${run.result ? html`<code>${JSON.stringify(run.result)}</code>` : html`<span class="muted">${run.rejectionReason ?? '—'}</span>`}${run.hintMismatches.length > 0 ? html`<br><strong>Hint mismatch:</strong> <code>${JSON.stringify(run.hintMismatches)}</code>` : ''}
<details><summary>evidence</summary><pre>${JSON.stringify(run.payload, null, 2)}</pre></details></td>
<td data-label="Review">${reviewCell(run, csrf)}</td></tr>`,
)}</tbody></table>`}</div>`;
}

function sessionsCard(view: PlayerView, now: number): Html {
  return html`<div class="card"><h2>Sessions</h2>${view.sessions.length === 0
    ? html`<p class="muted">No sessions.</p>`
    : html`<table><thead><tr><th>Signed in</th><th>Last refreshed</th><th>State</th></tr></thead><tbody>
${view.sessions.map(
  (s) => html`<tr><td>${timeCell(s.createdAt, now)}</td><td>${timeCell(s.rotatedAt, now)}</td><td>${s.revokedAt === null ? html`<span class="badge ok">live</span>` : html`<span class="badge failing">revoked (${s.revokedReason ?? '—'})</span> ${timeCell(s.revokedAt, now)}`}</td></tr>`,
)}</tbody></table>`}</div>`;
}

export function playerBody(view: PlayerView, game: GameDefinition, csrf: string, now: number): Html {
  const p = view.player;
  return html`<p><a href="/admin/games/${encodeURIComponent(p.gameId)}">${game.name}</a> · <code>${p.id}</code></p>
<div class="tiles">
<div class="tile"><div class="label">Boards</div><div class="value small">${hidingBadge(view, now)}</div></div>
<div class="tile"><div class="label">Provider identity</div><div class="value small">${p.provider} <code>${p.providerSubject}</code></div></div>
<div class="tile"><div class="label">Last seen</div><div class="value small">${timeCell(p.lastSeenAt, now)}</div></div>
<div class="tile"><div class="label">Player since</div><div class="value small">${timeCell(p.createdAt, now)}</div></div>
</div>
${actionsCard(view, csrf)}
${entriesCard(view, game, csrf, now)}
${runsCard(view, csrf, now)}
${sessionsCard(view, now)}
<div class="card"><h2>Audit <span class="muted">(<a href="/admin/audit?game=${encodeURIComponent(p.gameId)}&amp;player=${encodeURIComponent(p.id)}">all</a>)</span></h2>${auditTable(view.audit, new Map([[`${p.gameId}:${p.id}`, p.displayName]]), now)}</div>`;
}

/** Names of the players an audit page mentions, by `gameId:playerId` (erased players have none). */
export type PlayerNames = ReadonlyMap<string, string>;

function changeCell(value: unknown): Html {
  return value === null || value === undefined ? html`<span class="muted">—</span>` : html`<code>${JSON.stringify(value)}</code>`;
}

export function auditTable(entries: readonly AuditEntry[], names: PlayerNames, now: number): Html {
  if (entries.length === 0) return html`<p class="muted">No actions recorded.</p>`;
  return html`<table class="audit stack"><thead><tr><th>When</th><th>Who</th><th>Action</th><th>Player</th><th>Why</th><th>Before</th><th>After</th></tr></thead><tbody>
${entries.map((e) => {
  const name = names.get(`${e.gameId}:${e.playerId}`);
  return html`<tr><td data-label="When">${timeCell(e.at, now)}</td><td data-label="Who">${e.actor}</td><td data-label="Action"><strong>${e.action}</strong></td>
<td data-label="Player">${name === undefined ? html`<code>${e.playerId}</code> <span class="muted">(erased)</span>` : playerLink(e.gameId, e.playerId, name)} <span class="muted">${e.gameId}</span></td>
<td data-label="Why">${e.reason}</td><td data-label="Before">${changeCell(e.before)}</td><td data-label="After">${changeCell(e.after)}</td></tr>`;
})}</tbody></table>`;
}

export function auditBody(entries: readonly AuditEntry[], names: PlayerNames, filter: { game: string; player: string }, nextQuery: string | null, now: number): Html {
  return html`<div class="card"><form class="inline" method="get" action="/admin/audit">
<div><label for="audit-game">Game id</label><input id="audit-game" type="text" name="game" value="${filter.game}"></div>
<div><label for="audit-player">Player id</label><input id="audit-player" type="text" name="player" value="${filter.player}"></div>
<button type="submit">Filter</button></form></div>
<div class="card">${auditTable(entries, names, now)}${nextQuery === null ? '' : html`<p><a href="/admin/audit?${nextQuery}">Older actions →</a></p>`}</div>`;
}
