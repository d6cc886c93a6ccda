import { Fragment } from 'preact';
import { useState } from 'preact/hooks';
import type { LogRecord } from '../api/api-types.js';
import { formatDurationMs, formatTimestamp } from '../format.js';
import { hrefWithView } from '../state/links.js';
import { Link } from './link.js';
import { bodyText, LogFields } from './log-fields.js';
import { SeverityBadge } from './severity-badge.js';

export interface LogTableProps {
  items: LogRecord[];
  label: string;
  /** Times as offsets from this instant (a trace's start) instead of timestamps. */
  offsetFromMs?: number;
  /** Leave out the trace column (on the trace's own page). */
  withTrace?: boolean;
}

/** Log lines, one per row; a click opens every field of the line beneath it. */
export function LogTable({ items, label, offsetFromMs, withTrace = true }: LogTableProps) {
  const [openId, setOpenId] = useState<string | undefined>();
  const columns = withTrace ? 5 : 4;
  return (
    <div class="table-wrap">
      <table class="table table-clickable log-table" aria-label={label}>
        <thead>
          <tr>
            <th>{offsetFromMs === undefined ? 'Time (UTC)' : 'At'}</th>
            <th>Severity</th>
            <th>Service</th>
            <th>Message</th>
            {withTrace ? <th>Trace</th> : null}
          </tr>
        </thead>
        <tbody>
          {items.map((record) => {
            const open = record.id === openId;
            const toggle = () => setOpenId(open ? undefined : record.id);
            return (
              <Fragment key={record.id}>
                <tr
                  class={open ? 'log-row log-row-open' : 'log-row'}
                  tabIndex={0}
                  aria-expanded={open}
                  onClick={(event) => (event.target as Element).closest('a') === null && toggle()}
                  onKeyDown={(event) => {
                    if (event.key === 'Enter' || event.key === ' ') {
                      event.preventDefault();
                      toggle();
                    }
                  }}
                >
                  <td class="nowrap mono log-time" title={`${formatTimestamp(record.time)} UTC`}>
                    {offsetFromMs === undefined ? formatTimestamp(record.time) : `+${formatDurationMs(Date.parse(record.time) - offsetFromMs)}`}
                  </td>
                  <td>
                    <SeverityBadge severity={record.severity} text={record.severityText} />
                  </td>
                  <td class="nowrap">{record.service}</td>
                  <td class="log-body mono">{bodyText(record.body) || <span class="muted">(no body)</span>}</td>
                  {withTrace ? (
                    <td class="nowrap">
                      {record.traceId ? (
                        <Link href={hrefWithView(`/traces/${record.traceId}`, record.spanId ? { span: record.spanId } : {})} class="mono" title={`Trace ${record.traceId}`}>
                          {record.traceId.slice(0, 8)}…
                        </Link>
                      ) : (
                        <span class="muted">–</span>
                      )}
                    </td>
                  ) : null}
                </tr>
                {open ? (
                  <tr class="log-details-row">
                    <td colSpan={columns}>
                      <LogFields record={record} />
                    </td>
                  </tr>
                ) : null}
              </Fragment>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
