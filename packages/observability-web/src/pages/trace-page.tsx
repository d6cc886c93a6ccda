import { useMemo } from 'preact/hooks';
import type { TraceLogsResponse, TraceResponse, TraceSpan } from '../api/api-types.js';
import { useApi, type ApiState } from '../api/use-api.js';
import { serviceColors } from '../charts/service-colors.js';
import { DataState } from '../components/data-state.js';
import { Layout } from '../components/layout.js';
import { Link } from '../components/link.js';
import { LogTable } from '../components/log-table.js';
import { hrefWithView, withParams } from '../state/links.js';
import { OccurrenceFields } from '../components/occurrence-fields.js';
import { formatCount, formatDurationMs, formatTimestamp } from '../format.js';
import { navigate, useLocation } from '../state/location.js';
import type { RouteParams } from '../state/routes.js';

/** A trace as a waterfall: one row per span, bars placed on the trace's timeline, coloured by service. */
export function TracePage({ params }: { params: RouteParams }) {
  const state = useApi<TraceResponse>(`/api/v1/traces/${encodeURIComponent(params.traceId!)}`);
  const logs = useApi<TraceLogsResponse>(`/api/v1/traces/${encodeURIComponent(params.traceId!)}/logs`);
  const { search } = useLocation();
  const selectedSpanId = search.get('span');
  // The selected span lives in the URL: a reload or a shared link shows the same span.
  const select = (spanId: string | undefined) => navigate(withParams(`/traces/${encodeURIComponent(params.traceId!)}`, search, { span: spanId }), { replace: true });
  return (
    <Layout title={`Trace ${params.traceId}`}>
      <DataState state={state}>
        {(trace) => (
          <div class="trace-layout">
            <div class="trace-main">
              <Waterfall trace={trace} selectedSpanId={selectedSpanId} select={select} />
            </div>
            <TraceLogs state={logs} trace={trace} />
          </div>
        )}
      </DataState>
    </Layout>
  );
}

/** The trace's log lines in time order, beside the waterfall; times are offsets from the trace's start. */
function TraceLogs({ state, trace }: { state: ApiState<TraceLogsResponse>; trace: TraceResponse }) {
  return (
    <section class="section trace-logs" aria-label="Trace logs">
      <h2>
        Logs{' '}
        {state.data && state.data.items.length > 0 ? (
          <Link href={hrefWithView('/logs', { traceId: trace.traceId })} class="heading-link">
            open in Logs
          </Link>
        ) : null}
      </h2>
      <DataState state={state} empty={(data) => data.items.length === 0} emptyMessage="No log lines were received for this trace.">
        {(data) => (
          <>
            {data.truncated ? <p class="notice">Only the first {formatCount(data.items.length)} lines are shown.</p> : null}
            <LogTable items={data.items} label="Trace log lines" offsetFromMs={Date.parse(trace.startedAt)} withTrace={false} />
          </>
        )}
      </DataState>
    </section>
  );
}

/** The waterfall with the span the URL names selected (`?span=<spanId>`). */
function Waterfall({ trace, selectedSpanId, select }: { trace: TraceResponse; selectedSpanId: string | null; select: (spanId: string | undefined) => void }) {
  const selected = trace.spans.find((span) => span.spanId === selectedSpanId);
  const selectedId = selected?.id;
  const total = Math.max(trace.durationMs, 0.001);
  const colors = useMemo(() => serviceColors(trace.services), [trace.services]);
  return (
    <>
      <div class="trace-meta">
        <span>Started {formatTimestamp(trace.startedAt)} UTC</span>
        <span>Duration {formatDurationMs(trace.durationMs)}</span>
        <span>{formatCount(trace.spanCount)} spans</span>
        <span class="legend">
          {trace.services.map((service) => (
            <span class="legend-item" key={service}>
              <span class="legend-swatch" style={{ background: colors.get(service) }} />
              {service}
            </span>
          ))}
        </span>
      </div>
      {trace.truncated ? <p class="notice">This trace has more spans than are shown ({formatCount(trace.spans.length)} of {formatCount(trace.spanCount)}).</p> : null}
      <div class="waterfall" role="table" aria-label="Trace waterfall">
        <div class="waterfall-row waterfall-head" role="row">
          <span role="columnheader">Operation</span>
          <span role="columnheader" class="waterfall-scale">
            <span>0</span>
            <span>{formatDurationMs(total / 2)}</span>
            <span>{formatDurationMs(total)}</span>
          </span>
        </div>
        {trace.spans.map((span) => (
          <WaterfallRow key={span.id} span={span} color={colors.get(span.service) ?? '#5f6b7a'} total={total} selected={span.id === selectedId} onSelect={() => select(span.id === selectedId ? undefined : span.spanId)} />
        ))}
      </div>
      {selected ? (
        <section class="section span-details" aria-label="Span details">
          <h2>
            {selected.operation} <span class="muted">({selected.service})</span>
          </h2>
          <OccurrenceFields occurrence={selected} />
        </section>
      ) : (
        <p class="muted">Select a span to see its details.</p>
      )}
    </>
  );
}

function WaterfallRow({ span, color, total, selected, onSelect }: { span: TraceSpan; color: string; total: number; selected: boolean; onSelect: () => void }) {
  const left = Math.min((span.offsetMs / total) * 100, 99.7);
  const width = Math.min(Math.max((span.durationMs / total) * 100, 0.3), 100 - left);
  // A bar reaching the right edge carries its label inside, where there is room.
  const labelInside = left + width > 85;
  return (
    <div
      class={`waterfall-row${selected ? ' waterfall-row-selected' : ''}`}
      role="row"
      tabIndex={0}
      aria-selected={selected}
      onClick={onSelect}
      onKeyDown={(event) => {
        if (event.key === 'Enter' || event.key === ' ') {
          event.preventDefault();
          onSelect();
        }
      }}
    >
      <span role="cell" class="waterfall-name" style={{ paddingLeft: `${0.5 + span.depth * 1.1}rem` }} title={`${span.service}: ${span.operation}`}>
        <span class="legend-swatch" style={{ background: color }} />
        {span.status === 'error' ? <span class="error-dot" aria-label="error" /> : null}
        <span class="waterfall-operation">{span.operation}</span>
        {span.parentMissing ? <span class="muted" title="Its parent span was not received"> (orphan)</span> : null}
        {span.links && span.links.length > 0 ? <span class="muted" title="Linked to other spans"> ↗{span.links.length}</span> : null}
      </span>
      <span role="cell" class="waterfall-track">
        <span class={`waterfall-bar${span.status === 'error' ? ' waterfall-bar-error' : ''}`} style={{ left: `${left}%`, width: `${width}%`, background: color }} />
        {(span.events ?? []).map((event, index) => (
          <span
            key={index}
            class={`waterfall-event${event.name === 'exception' ? ' waterfall-event-exception' : ''}`}
            style={{ left: `${Math.min(((span.offsetMs + event.offsetMs) / total) * 100, 99.7)}%` }}
            title={`${event.name} at +${formatDurationMs(event.offsetMs)}`}
            aria-label={`event ${event.name}`}
          />
        ))}
        <span class={labelInside ? 'waterfall-duration waterfall-duration-inside' : 'waterfall-duration'} style={labelInside ? { right: `${100 - left - width}%` } : { left: `${left + width}%` }}>
          {formatDurationMs(span.durationMs)}
        </span>
      </span>
    </div>
  );
}
