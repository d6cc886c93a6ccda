import { Fragment } from 'preact';
import type { AttributeValue, Occurrence } from '../api/api-types.js';
import { formatDurationMs, formatTimestamp } from '../format.js';
import { hrefWithView } from '../state/links.js';
import { AttributeTable } from './attribute-table.js';
import { Link } from './link.js';
import { StatusBadge } from './status-badge.js';

/** Attributes inline, `name=value` pairs, for the rows of the events and links tables. */
function inlineAttributes(attributes: Record<string, AttributeValue> | null): string {
  return Object.entries(attributes ?? {})
    .map(([name, value]) => `${name}=${String(value)}`)
    .join(', ');
}

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
          {occurrence.errorGroupId ? (
            <p>
              <Link href={hrefWithView(`/errors/${occurrence.errorGroupId}`)}>All occurrences of this error</Link>
            </p>
          ) : null}
        </section>
      ) : null}
      <section class="section" aria-label="Attributes">
        <h2>Attributes</h2>
        <AttributeTable attributes={occurrence.attributes} empty="No attributes." />
      </section>
      {occurrence.events && occurrence.events.length > 0 ? (
        <section class="section" aria-label="Events">
          <h2>Events</h2>
          <table class="table table-compact">
            <thead>
              <tr>
                <th scope="col">At</th>
                <th scope="col">Event</th>
                <th scope="col">Attributes</th>
              </tr>
            </thead>
            <tbody>
              {occurrence.events.map((event, index) => (
                <tr key={index} class={event.name === 'exception' ? 'event-exception' : undefined}>
                  <td title={`${formatTimestamp(event.time)} UTC`}>+{formatDurationMs(event.offsetMs)}</td>
                  <td>{event.name}</td>
                  <td class="mono">{inlineAttributes(event.attributes)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </section>
      ) : null}
      {occurrence.links && occurrence.links.length > 0 ? (
        <section class="section" aria-label="Links">
          <h2>Links</h2>
          <table class="table table-compact">
            <thead>
              <tr>
                <th scope="col">Linked span</th>
                <th scope="col">Attributes</th>
              </tr>
            </thead>
            <tbody>
              {occurrence.links.map((link) => (
                <tr key={`${link.traceId}:${link.spanId}`}>
                  <td class="mono">
                    <Link href={hrefWithView(`/traces/${link.traceId}`, { span: link.spanId })}>
                      {link.traceId === occurrence.traceId ? 'this trace' : `trace ${link.traceId}`}, span {link.spanId}
                    </Link>
                  </td>
                  <td class="mono">{inlineAttributes(link.attributes)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </section>
      ) : null}
      {occurrence.resourceAttributes ? (
        <section class="section" aria-label="Resource attributes">
          <h2>Resource attributes</h2>
          <AttributeTable attributes={occurrence.resourceAttributes} empty="No other resource attributes." />
        </section>
      ) : null}
    </div>
  );
}
