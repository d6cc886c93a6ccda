import type { ManifestProblem } from '../manifest/manifest-check.js';
import type { ManifestDiff } from '../manifest/manifest-diff.js';
import type { ManifestVersionView } from '../manifest/game-catalog.js';
import type { ManifestView } from './admin-data.js';
import { csrfField, isoTime, timeCell } from './admin-layout.js';
import { html, type Html } from './html.js';

/** A diff and the version it is taken against (null: the bundled demo manifest). */
export interface DiffAgainst {
  against: number | null;
  diff: ManifestDiff;
}

/**
 * What the manifest form shows again after a post that stored nothing: the text, and why
 * (`problems`), what it would orphan (`orphans`, to confirm), and its diff against the newest
 * version (a preview, or with the orphans).
 */
export interface ManifestSubmission {
  text: string;
  problems?: readonly ManifestProblem[];
  orphans?: readonly string[];
  changes?: DiffAgainst;
  /** Shown as a preview (nothing was tried), not after a refused save. */
  previewed?: boolean;
}

/** The path of a stored manifest version's page. */
export function manifestVersionPath(version: number): string {
  return `/admin/manifest/versions/${version}`;
}

function versionName(version: number | null): string {
  return version === null ? 'the bundled demo manifest' : `version ${version}`;
}

const lineKinds: Readonly<Record<string, string>> = { '+': 'add', '-': 'del', ' ': 'same' };

/** A line diff as a unified diff: hunk headers, added lines green, removed red, context plain. */
export function diffView(changes: DiffAgainst, to: string): Html {
  const { diff, against } = changes;
  if (diff.hunks.length === 0) return html`<p class="muted">No change against ${versionName(against)}.</p>`;
  return html`<p>From ${versionName(against)} to ${to}: <span class="diff-count add">+${diff.added}</span> <span class="diff-count del">−${diff.removed}</span> lines (JSON with members sorted).</p>
<pre class="diff" aria-label="Line diff">${diff.hunks.map(
    (hunk) => html`<span class="hunk">@@ −${hunk.oldStart},${hunk.oldLines} +${hunk.newStart},${hunk.newLines} @@</span>${hunk.lines.map(
      (line) => html`<span class="${lineKinds[line[0]!] ?? 'same'}">${line}</span>`,
    )}`,
  )}</pre>`;
}

function orphansNotice(orphans: readonly string[], lead: string, action: string): Html {
  return html`<div class="notice error" role="alert">${lead} it removes parts that data still refers to, which would be orphaned:
<ul class="problems">${orphans.map((orphan) => html`<li>${orphan}</li>`)}</ul>
Tick “Store it anyway” and ${action} again to store it all the same.</div>`;
}

const confirmBox = html`<label class="check"><input type="checkbox" name="confirm" value="yes"> Store it anyway: I know the data above is orphaned</label>`;

function historyCard(view: ManifestView, csrfToken: string, now: number): Html {
  const current = view.current.version;
  return html`<div class="card"><h2>Version history</h2>${view.versions.length === 0
    ? html`<p class="muted">No version stored yet.</p>`
    : html`<table class="stack history"><thead><tr><th class="num">Version</th><th>Stored</th><th>By</th><th>Changes</th><th>Actions</th></tr></thead><tbody>
${view.versions.map(
  (v) => html`<tr><td class="num" data-label="Version">${v.version}${v.version === current ? html` <span class="badge ok">served</span>` : ''}</td><td data-label="Stored">${timeCell(v.createdAt, now)}</td><td data-label="By">${v.author ?? '—'}</td>
<td data-label="Changes">${v.changes === null ? html`<span class="muted">not recorded</span>` : html`<ul class="changes">${v.changes.map((line) => html`<li>${line}</li>`)}</ul>`}</td>
<td data-label="Actions" class="actions"><a href="${manifestVersionPath(v.version)}">View, diff</a>${v.version === current
    ? ''
    : html`<form method="post" action="${manifestVersionPath(v.version)}/rollback">${csrfField(csrfToken)}<button type="submit">Roll back to ${v.version}</button></form>`}</td></tr>`,
)}
</tbody></table>`}</div>`;
}

export function manifestBody(view: ManifestView, csrfToken: string, submitted: ManifestSubmission | undefined, now: number): Html {
  const text = submitted?.text ?? JSON.stringify(view.current.manifest, null, 2);
  const orphans = submitted?.orphans ?? [];
  const problems = submitted?.problems ?? [];
  return html`${problems.length > 0
    ? html`<div class="notice error" role="alert">The manifest was not saved; fix these problems:
<ul class="problems">${problems.map((p) => html`<li><code>${p.path || '/'}</code>: ${p.reason}</li>`)}</ul></div>`
    : ''}${orphans.length > 0 ? orphansNotice(orphans, submitted?.previewed ? 'Saving it would orphan data:' : 'Not saved:', 'save') : ''}
${submitted?.changes ? html`<div class="card"><h2>Changes</h2>${diffView(submitted.changes, 'this text')}</div>` : ''}
<div class="card">
<p>Serving ${versionName(view.current.version)}.</p>
<form method="post" action="/admin/manifest">
${csrfField(csrfToken)}
<label for="manifest">Manifest (JSON)</label>
<textarea id="manifest" name="manifest" spellcheck="false">${text}</textarea>
${orphans.length > 0 ? confirmBox : ''}
<p class="buttons"><button type="submit">Validate and save as a new version</button> <button type="submit" name="preview" value="yes" class="secondary">Preview changes</button></p>
</form></div>
${historyCard(view, csrfToken, now)}`;
}

/** A stored version: what rolling back to it changes, the rollback button, its document. */
export function manifestVersionBody(view: ManifestVersionView, csrfToken: string, orphans: readonly string[], now: number): Html {
  const { version } = view;
  const isNewest = view.against === version.version;
  return html`${orphans.length > 0 ? orphansNotice(orphans, 'Not rolled back:', 'roll back') : ''}
<p><a href="/admin/manifest">← Manifest and history</a></p>
<div class="card"><p>Stored ${timeCell(version.createdAt, now)} (<code>${isoTime(version.createdAt)}</code>) by ${version.author ?? '—'}.</p>
${version.changes ? html`<ul class="changes">${version.changes.map((line) => html`<li>${line}</li>`)}</ul>` : ''}</div>
<div class="card"><h2>${isNewest ? 'The newest version' : 'Rolling back'}</h2>${isNewest
    ? html`<p class="muted">This is the newest stored version: there is nothing to roll back to.</p>`
    : html`${diffView(view, `version ${version.version}`)}
<form method="post" action="${manifestVersionPath(version.version)}/rollback">${csrfField(csrfToken)}
${orphans.length > 0 ? confirmBox : ''}
<p><button type="submit">Roll back to version ${version.version}</button> <span class="muted">Stores this document as a new version, served at once.</span></p></form>`}</div>
<div class="card"><details><summary>Document of version ${version.version}</summary><pre>${JSON.stringify(view.document, null, 2)}</pre></details></div>`;
}
