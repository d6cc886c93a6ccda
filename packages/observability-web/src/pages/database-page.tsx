import type { DatabaseResponse } from '../api/api-types.js';
import { useApi } from '../api/use-api.js';
import { DataState } from '../components/data-state.js';
import { DataTable } from '../components/data-table.js';
import { Layout } from '../components/layout.js';
import { formatCount, formatDurationMs, formatPercent } from '../format.js';
import { useGlobalFilters } from '../state/use-global-filters.js';

/** Database statements across the filtered services, by total time spent. */
export function DatabasePage() {
  const { apiQuery } = useGlobalFilters();
  return (
    <Layout title="Database">
      <DatabaseTable query={apiQuery} />
    </Layout>
  );
}

/** Statements by total time, with count, errors and latency; shared by the service page's tab. */
export function DatabaseTable({ query }: { query: Record<string, string> }) {
  const state = useApi<DatabaseResponse>('/api/v1/database', query);
  return (
    <DataState state={state} empty={(data) => data.statements.length === 0}>
      {(data) => {
        const grandTotalMs = data.statements.reduce((sum, row) => sum + row.totalMs, 0);
        return (
          <DataTable
            label="Database statements"
            columns={['Statement', 'System', { label: 'Total time', num: true }, { label: 'Share', num: true }, { label: 'Count', num: true }, { label: 'Errors', num: true }, { label: 'p50', num: true }, { label: 'p95', num: true }]}
          >
            {data.statements.map((row) => (
              <tr key={`${row.system}\u0000${row.statement}`}>
                <td>
                  <code class="statement" title={row.statement}>
                    {row.statement}
                  </code>
                </td>
                <td>{row.system}</td>
                <td class="num">{formatDurationMs(row.totalMs)}</td>
                <td class="num">
                  <span class="share-bar" aria-hidden="true">
                    <span class="share-bar-fill" style={{ width: `${grandTotalMs > 0 ? (row.totalMs / grandTotalMs) * 100 : 0}%` }} />
                  </span>
                  {formatPercent(grandTotalMs > 0 ? row.totalMs / grandTotalMs : 0)}
                </td>
                <td class="num">{formatCount(row.count)}</td>
                <td class={row.errorCount > 0 ? 'num bad' : 'num'}>{formatCount(row.errorCount)}</td>
                <td class="num">{formatDurationMs(row.p50Ms)}</td>
                <td class="num">{formatDurationMs(row.p95Ms)}</td>
              </tr>
            ))}
          </DataTable>
        );
      }}
    </DataState>
  );
}
