import type { HealthResponse } from '../api/api-types.js';
import { useApi } from '../api/use-api.js';
import { DataState } from '../components/data-state.js';
import { Layout } from '../components/layout.js';
import { Tiles } from '../components/tiles.js';
import { formatBytes, formatCount, formatDurationMs, formatRate, formatTimestamp } from '../format.js';

const tableLabels: Record<string, string> = {
  occurrences: 'Occurrences',
  operationRollups: 'Operation rollups',
  tenantRollups: 'Tenant rollups',
  statementRollups: 'Statement rollups',
  dependencyRollups: 'Dependency rollups',
};

/** The service's own state: ingestion flow, storage, retention and the database. */
export function HealthPage() {
  // Health is about now, not the chosen range.
  const state = useApi<HealthResponse>('/api/v1/health');
  return (
    <Layout title="Health" controls="refresh">
      <DataState state={state}>
        {(health) => (
          <>
            <Tiles
              tiles={[
                {
                  label: 'Database',
                  value: `${health.database.dialect} · ${health.database.status}`,
                  tone: health.database.status === 'ok' ? 'good' : 'bad',
                },
                { label: 'Database round trip', value: formatDurationMs(health.database.latencyMs) },
                { label: 'Ingestion rate (15 min)', value: health.ingestion ? formatRate(health.ingestion.itemsPerMinute) : '–' },
                { label: 'Accepted (24 h)', value: formatCount(health.ingestion?.acceptedLast24h) },
                { label: 'Refused (24 h)', value: formatCount(health.ingestion?.refusedLast24h), tone: (health.ingestion?.refusedLast24h ?? 0) > 0 ? 'bad' : undefined },
                { label: 'Storage used', value: formatBytes(health.storage?.sizeBytes) },
              ]}
            />
            {health.database.message ? (
              <p class="notice notice-error" role="alert">
                {health.database.message}
              </p>
            ) : null}
            <dl class="fields section">
              <dt>Checked (UTC)</dt>
              <dd>{formatTimestamp(health.checkedAt)}</dd>
              <dt>Last item received (UTC)</dt>
              <dd>{health.ingestion?.lastReceivedAt ? formatTimestamp(health.ingestion.lastReceivedAt) : 'Nothing received yet'}</dd>
              <dt>Retention</dt>
              <dd>{health.retention ? `${health.retention.days} days` : '–'}</dd>
              <dt>Oldest stored occurrence (UTC)</dt>
              <dd>{health.retention?.oldestOccurrenceAt ? formatTimestamp(health.retention.oldestOccurrenceAt) : '–'}</dd>
              {health.storage
                ? Object.entries(health.storage.rows).map(([table, rows]) => [<dt key={`${table}-t`}>Rows: {tableLabels[table] ?? table}</dt>, <dd key={`${table}-v`}>{formatCount(rows)}</dd>])
                : null}
            </dl>
          </>
        )}
      </DataState>
    </Layout>
  );
}
