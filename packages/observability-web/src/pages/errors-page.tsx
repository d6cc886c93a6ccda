import type { ErrorGroupListItem, ErrorGroupsResponse } from '../api/api-types.js';
import { useApi } from '../api/use-api.js';
import { DataState } from '../components/data-state.js';
import { ErrorStatusBadge, errorTitleOf } from '../components/error-status-badge.js';
import { Layout } from '../components/layout.js';
import { Link } from '../components/link.js';
import { Sparkline } from '../components/sparkline.js';
import { formatAgo, formatCount } from '../format.js';
import { hrefWithView, withParams } from '../state/links.js';
import { navigate, useLocation } from '../state/location.js';
import { useGlobalFilters } from '../state/use-global-filters.js';

const pageSize = 25;
const statusChoices = [
  { value: 'unresolved', label: 'Unresolved' },
  { value: 'all', label: 'All' },
  { value: 'open', label: 'Open' },
  { value: 'regressed', label: 'Regressed' },
  { value: 'resolved', label: 'Resolved' },
  { value: 'ignored', label: 'Ignored' },
];
const sortChoices = [
  { value: 'lastSeen', label: 'Last seen' },
  { value: 'firstSeen', label: 'First seen' },
  { value: 'count', label: 'Events' },
];

/** Error groups of the view: unresolved first by default, a page at a time (cursor in the URL). */
export function ErrorsPage() {
  const { search } = useLocation();
  const { apiQuery } = useGlobalFilters();
  const status = search.get('status') ?? 'unresolved';
  const sort = search.get('sort') ?? 'lastSeen';
  const cursor = search.get('cursor') ?? undefined;
  const state = useApi<ErrorGroupsResponse>('/api/v1/errors', { ...apiQuery, status: status === 'all' ? undefined : status, sort, limit: pageSize, cursor });
  const here = (change: Record<string, string | undefined>) => withParams('/errors', search, { cursor: undefined, ...change });

  return (
    <Layout title="Errors">
      <div class="toolbar">
        <ChoiceSelect label="Status" name="status" value={status} choices={statusChoices} choose={(value) => navigate(here({ status: value === 'unresolved' ? undefined : value }))} />
        <ChoiceSelect label="Sort by" name="sort" value={sort} choices={sortChoices} choose={(value) => navigate(here({ sort: value === 'lastSeen' ? undefined : value }))} />
      </div>
      <DataState
        state={state}
        empty={(data) => data.items.length === 0 && cursor === undefined}
        emptyMessage={status === 'unresolved' ? 'No unresolved errors in this range.' : 'No errors match in this range. Widen the time range or clear the filters.'}
      >
        {(data) => (
          <>
            <ErrorGroupsTable groups={data.items} />
            <nav class="pager" aria-label="Pages">
              <button type="button" class="button button-small" disabled={cursor === undefined} onClick={() => navigate(here({}))}>
                First page
              </button>
              <button type="button" class="button button-small" disabled={data.nextCursor === null} onClick={() => navigate(here({ cursor: data.nextCursor ?? undefined }))}>
                Next page
              </button>
            </nav>
          </>
        )}
      </DataState>
    </Layout>
  );
}

/** A labelled select over fixed choices. */
function ChoiceSelect({ label, name, value, choices, choose }: { label: string; name: string; value: string; choices: ReadonlyArray<{ value: string; label: string }>; choose: (value: string) => void }) {
  return (
    <label class="field-inline">
      {label}
      <select name={name} value={value} onChange={(event) => choose(event.currentTarget.value)}>
        {choices.map((choice) => (
          <option key={choice.value} value={choice.value}>
            {choice.label}
          </option>
        ))}
      </select>
    </label>
  );
}

/** Error groups as a table: title, message and origin, status, events in the range, trend, tenants, first and last seen; a row opens its group. */
export function ErrorGroupsTable({ groups }: { groups: readonly ErrorGroupListItem[] }) {
  return (
    <div class="table-wrap">
      <table class="table table-clickable error-groups" aria-label="Error groups">
        <thead>
          <tr>
            <th>Error</th>
            <th>Status</th>
            <th class="num">Events</th>
            <th>Trend</th>
            <th class="num">Tenants</th>
            <th>First seen</th>
            <th>Last seen</th>
          </tr>
        </thead>
        <tbody>
          {groups.map((group) => {
            const href = hrefWithView(`/errors/${group.groupId}`);
            return (
              <tr key={group.groupId} onClick={(event) => (event.target as Element).closest('a') === null && navigate(href)}>
                <td class="error-cell">
                  <Link href={href} class="error-title">
                    {errorTitleOf(group)}
                  </Link>
                  {group.type ? <span class="error-summary">{group.message}</span> : null}
                  <span class="error-origin">
                    <span class="badge">{group.service}</span>
                    {group.topFrame ? <code>{group.topFrame}</code> : null}
                  </span>
                </td>
                <td>
                  <ErrorStatusBadge status={group.status} />
                </td>
                <td class="num strong">{formatCount(group.countInRange)}</td>
                <td>
                  <Sparkline values={group.trend} label={`Events of ${errorTitleOf(group)} over the range`} />
                </td>
                <td class="num">{formatCount(group.tenantsAffected)}</td>
                <td class="nowrap" title={group.firstSeen}>
                  {formatAgo(group.firstSeen)}
                </td>
                <td class="nowrap" title={group.lastSeen}>
                  {formatAgo(group.lastSeen)}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
