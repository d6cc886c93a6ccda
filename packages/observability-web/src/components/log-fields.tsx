import { Fragment, type ComponentChildren } from 'preact';
import type { AttributeValue, LogRecord } from '../api/api-types.js';
import { formatTimestamp } from '../format.js';
import { hrefWithView } from '../state/links.js';
import { AttributeTable, sortedAttributes } from './attribute-table.js';
import { Link } from './link.js';
import { SeverityBadge } from './severity-badge.js';

/** A body as text: strings as they are, structured values as indented JSON. */
export function bodyText(body: unknown, indent?: number): string {
  if (body === null || body === undefined) return '';
  return typeof body === 'string' ? body : JSON.stringify(body, null, indent);
}

/** A titled section of attributes, left out when there are none. */
function AttributeRows({ title, attributes }: { title: string; attributes: Record<string, AttributeValue> | null }) {
  if (sortedAttributes(attributes).length === 0) return null;
  return (
    <section class="section" aria-label={title}>
      <h3 class="subheading">{title}</h3>
      <AttributeTable attributes={attributes} empty="" />
    </section>
  );
}

/** Every field of a log record: the body in full, where it came from, its trace, its attributes. */
export function LogFields({ record }: { record: LogRecord }) {
  const rows: Array<[string, ComponentChildren]> = [
    ['Time (UTC)', `${formatTimestamp(record.time)} (${record.timeUnixNano} ns)`],
    ['Observed (UTC)', formatTimestamp(record.observedAt)],
    ['Severity', <SeverityBadge severity={record.severity} text={`${record.severity} (${record.severityNumber})`} />],
    ['Severity text', record.severityText],
    ['Event', record.eventName],
    ['Service', record.service],
    ['Environment', record.environment],
    ['Version', record.serviceVersion],
    ['Instance', record.instance],
    ['Logger', record.scope ? [record.scope.name, record.scope.version].filter(Boolean).join(' ') : null],
    ['Tenant', record.tenantId],
    ['Trace', record.traceId ? <Link href={hrefWithView(`/traces/${record.traceId}`, record.spanId ? { span: record.spanId } : {})}>{record.traceId}</Link> : null],
    ['Span id', record.spanId],
    ['Received (UTC)', formatTimestamp(record.receivedAt)],
    ['Id', record.id],
  ];
  return (
    <div class="log-fields">
      <pre class="log-body-full">{bodyText(record.body, 2) || <span class="muted">(no body)</span>}</pre>
      <dl class="fields">
        {rows
          .filter(([, value]) => value !== null && value !== undefined && value !== '')
          .map(([label, value]) => (
            <Fragment key={label}>
              <dt>{label}</dt>
              <dd>{value}</dd>
            </Fragment>
          ))}
      </dl>
      <AttributeRows title="Attributes" attributes={record.attributes} />
      <AttributeRows title="Resource attributes" attributes={record.resourceAttributes} />
    </div>
  );
}
