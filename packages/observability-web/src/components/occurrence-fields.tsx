import { Fragment } from 'preact';
import type { Occurrence } from '../api/api-types.js';
import { formatDurationMs, formatTimestamp } from '../format.js';
import { StatusBadge } from './status-badge.js';

/** Every field of an occurrence, its attributes, and its error with the stack. */
export function OccurrenceFields({ occurrence }: { occurrence: Occurrence }) {
  const rows: Array<[string, string | null | undefined]> = [
    ['Operation', occurrence.operation],
    ['Service', occurrence.service],
    ['Environment', occurrence.environment],
    ['Version', occurrence.serviceVersion],
    ['Instance', occurrence.instance],
    ['Kind', occurrence.kind],
    ['Started (UTC)', formatTimestamp(occurrence.startedAt)],
    ['Duration', formatDurationMs(occurrence.durationMs)],
    ['Tenant', occurrence.tenantId],
    ['Trace id', occurrence.traceId],
    ['Span id', occurrence.spanId],
    ['Parent span id', occurrence.parentSpanId],
    ['HTTP', occurrence.http ? [occurrence.http.method, occurrence.http.route, occurrence.http.statusCode].filter((part) => part !== null).join(' ') : null],
    ['Database', occurrence.db ? [occurrence.db.system, occurrence.db.operation].filter(Boolean).join(' ') : null],
    ['Statement', occurrence.db?.statement],
    ['Peer', occurrence.peer ? [occurrence.peer.service, occurrence.peer.address].filter(Boolean).join(' at ') : null],
    ['Sender id', occurrence.clientId],
    ['Received (UTC)', formatTimestamp(occurrence.receivedAt)],
  ];
  const attributes = Object.entries(occurrence.attributes ?? {}).sort(([a], [b]) => a.localeCompare(b));
  return (
    <div class="detail">
      <dl class="fields">
        <dt>Status</dt>
        <dd>
          <StatusBadge status={occurrence.status} />
        </dd>
        {rows
          .filter(([, value]) => value !== null && value !== undefined && value !== '')
          .map(([label, value]) => (
            <Fragment key={label}>
              <dt>{label}</dt>
              <dd class={label === 'Statement' ? 'mono' : undefined}>{value}</dd>
            </Fragment>
          ))}
      </dl>
      {occurrence.error ? (
        <section class="section error-block" aria-label="Error">
          <h2>
            Error{occurrence.error.type ? `: ${occurrence.error.type}` : ''}
          </h2>
          {occurrence.error.message ? <p class="error-message">{occurrence.error.message}</p> : null}
          {occurrence.error.stack ? <pre class="stack">{occurrence.error.stack}</pre> : null}
        </section>
      ) : null}
      <section class="section" aria-label="Attributes">
        <h2>Attributes</h2>
        {attributes.length === 0 ? (
          <p class="muted">No attributes.</p>
        ) : (
          <table class="table table-compact">
            <tbody>
              {attributes.map(([name, value]) => (
                <tr key={name}>
                  <th scope="row" class="mono">
                    {name}
                  </th>
                  <td class="mono">{String(value)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
    </div>
  );
}
