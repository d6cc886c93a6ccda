import type { AlertEvent } from '../../api/api-types.js';
import { DataTable } from '../../components/data-table.js';
import { Link } from '../../components/link.js';
import { formatTimestamp } from '../../format.js';

const deliveredOf = (event: AlertEvent) => {
  if (event.silenced) return 'silenced';
  if (event.deliveries.length === 0) return '—';
  const delivered = event.deliveries.filter((delivery) => delivery.status === 'delivered').length;
  return `${delivered} of ${event.deliveries.length} delivered`;
};

/**
 * Alert transitions as a table: when, which rule (a link to it on the Alerts page), the change,
 * the value against the threshold, and the evidence: the dashboard view of the window, the
 * example traces and the error groups.
 */
export function AlertEventsTable({ events }: { events: readonly AlertEvent[] }) {
  return (
    <DataTable label="Alert history" className="alert-events" columns={['Minute (UTC)', 'Rule', 'Transition', { label: 'Value', num: true }, { label: 'Threshold', num: true }, 'Evidence', 'Notified']}>
      {events.map((event) => (
        <tr key={event.id} data-event-id={event.id}>
          <td class="nowrap">{formatTimestamp(event.minute)}</td>
          <td class="strong">
            <Link href={`/alerts?rule=${encodeURIComponent(event.ruleId)}`}>{event.ruleName}</Link>
          </td>
          <td class="nowrap">
            {event.from} → <span class={`badge badge-${event.to}`}>{event.to}</span>
          </td>
          <td class="num">{event.value ?? 'no data'}</td>
          <td class="num">
            {event.evidence.comparison} {event.threshold}
          </td>
          <td class="evidence">
            <a href={event.evidence.dashboardUrl}>window</a>
            {event.evidence.traces.map((trace) => (
              <Link key={trace.traceId} class="mono" href={`/traces/${trace.traceId}`} title={`${trace.durationMs} ms, ${trace.status}`}>
                {trace.traceId.slice(0, 12)}
              </Link>
            ))}
            {event.evidence.errorGroups.map((group) => (
              <Link key={group.groupId} href={`/errors/${group.groupId}`}>
                {group.type}: {group.message}
              </Link>
            ))}
          </td>
          <td class="nowrap muted">{deliveredOf(event)}</td>
        </tr>
      ))}
    </DataTable>
  );
}
