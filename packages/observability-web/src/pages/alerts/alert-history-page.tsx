import type { AlertEventsResponse, AlertRulesResponse } from '../../api/api-types.js';
import { useApi } from '../../api/use-api.js';
import { DataState } from '../../components/data-state.js';
import { Layout } from '../../components/layout.js';
import { Link } from '../../components/link.js';
import { TimeRangePicker } from '../../components/time-range-picker.js';
import { withParams } from '../../state/links.js';
import { navigate, useLocation } from '../../state/location.js';
import { useGlobalFilters } from '../../state/use-global-filters.js';
import { AlertEventsTable } from './alert-events-table.js';
import { Pager } from '../../components/pager.js';

const pageSize = 50;
const states = ['firing', 'resolved', 'pending', 'ok'] as const;

/**
 * Alert history: every transition of every rule in the time range, newest first, filtered by
 * rule and by the state entered, a page at a time (the cursor in the URL).
 */
export function AlertHistoryPage() {
  const { search } = useLocation();
  const { filters, apiQuery, update } = useGlobalFilters();
  const rule = search.get('rule') ?? undefined;
  const state = search.get('state') ?? undefined;
  const before = search.get('before') ?? undefined;
  const rules = useApi<AlertRulesResponse>('/api/v1/alerts/rules');
  const events = useApi<AlertEventsResponse>('/api/v1/alerts/events', { from: apiQuery.from, to: apiQuery.to, ruleId: rule, state, before, limit: pageSize });
  const here = (change: Record<string, string | undefined>) => withParams('/alerts/history', search, { before: undefined, ...change });

  return (
    <Layout title="Alert history" controls="refresh" actions={<TimeRangePicker range={filters.range} onChange={(range) => update({ range })} />}>
      <div class="toolbar">
        <Link href="/alerts">← Rules</Link>
        <label class="field-inline">
          Rule
          <select name="rule" value={rule ?? ''} onChange={(event) => navigate(here({ rule: event.currentTarget.value }))}>
            <option value="">All rules</option>
            {(rules.data?.items ?? []).map((item) => (
              <option key={item.id} value={item.id}>
                {item.rule.name}
              </option>
            ))}
            {rule !== undefined && rules.data && !rules.data.items.some((item) => item.id === rule) ? <option value={rule}>{rule} (deleted)</option> : null}
          </select>
        </label>
        <label class="field-inline">
          State entered
          <select name="state" value={state ?? ''} onChange={(event) => navigate(here({ state: event.currentTarget.value }))}>
            <option value="">Any</option>
            {states.map((value) => (
              <option key={value} value={value}>
                {value}
              </option>
            ))}
          </select>
        </label>
      </div>
      <DataState state={events} empty={(data) => data.items.length === 0 && before === undefined} emptyMessage="No alert changed state in this range with these filters.">
        {(data) => (
          <>
            <AlertEventsTable events={data.items} />
            <Pager toNewer={before === undefined ? undefined : () => navigate(here({}))} toOlder={data.nextBefore === null ? undefined : () => navigate(here({ before: String(data.nextBefore) }))} />
          </>
        )}
      </DataState>
    </Layout>
  );
}
