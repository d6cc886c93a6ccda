import { useRef, useState } from 'preact/hooks';
import type { OccurrenceDurationsResponse } from '../api/api-types.js';
import { formatCount, formatDurationMs, formatTimestamp } from '../format.js';
import { HistogramPlaceholder, PlotMessage } from './histogram-placeholder.js';

const width = 1000;
const height = 130;
const gap = 2;

type Bin = OccurrenceDurationsResponse['bins'][number];

/**
 * The log-scale bins from the shortest to the longest present, the empty ones between included,
 * so that equal widths on screen are equal ratios of duration.
 */
export function contiguousBins(bins: readonly Bin[]): Bin[] {
  if (bins.length === 0) return [];
  const indexOf = (bin: Bin) => Math.round(Math.log10(bin.fromMs) * 10);
  const byIndex = new Map(bins.map((bin) => [indexOf(bin), bin]));
  const first = indexOf(bins[0]!);
  const last = indexOf(bins[bins.length - 1]!);
  const bound = (index: number) => Math.round(10 ** (index / 10) * 1000) / 1000;
  const all: Bin[] = [];
  for (let index = first; index <= last; index += 1) all.push(byIndex.get(index) ?? { fromMs: bound(index), toMs: bound(index + 1), count: 0, errorCount: 0 });
  return all;
}

/** What the caption says after the title (whole in its tooltip: on a narrow screen the caption shows one line). */
function captionDetail(durations: OccurrenceDurationsResponse): string {
  const limited = durations.search.limited ? `, the newest ${formatCount(durations.search.window)} of the range, since ${formatTimestamp(durations.search.searchedFrom)} UTC` : '';
  return `${formatCount(durations.total)} occurrences${limited}; drag across the bars to filter by duration`;
}

/**
 * How the matching occurrences' durations spread, errors in red; dragging across bars selects a
 * duration range (`choose`), the current one (`selected`) shaded.
 */
export function DurationHistogram({
  durations,
  selected,
  choose,
}: {
  durations: OccurrenceDurationsResponse;
  selected: { minMs: number | undefined; maxMs: number | undefined };
  choose: (range: { minMs: number; maxMs: number }) => void;
}) {
  const bins = contiguousBins(durations.bins);
  const svgRef = useRef<SVGSVGElement>(null);
  const [drag, setDrag] = useState<{ start: number; end: number } | undefined>();
  const max = Math.max(1, ...bins.map((bin) => bin.count));
  const barWidth = width / Math.max(bins.length, 1);

  const binAt = (clientX: number) => {
    const box = svgRef.current!.getBoundingClientRect();
    const ratio = Math.min(Math.max((clientX - box.left) / box.width, 0), 0.9999);
    return Math.floor(ratio * bins.length);
  };
  const finish = () => {
    if (!drag) return;
    const low = bins[Math.min(drag.start, drag.end)]!;
    const high = bins[Math.max(drag.start, drag.end)]!;
    setDrag(undefined);
    choose({ minMs: low.fromMs, maxMs: high.toMs });
  };
  const inSelection = (bin: Bin, index: number) =>
    drag
      ? index >= Math.min(drag.start, drag.end) && index <= Math.max(drag.start, drag.end)
      : (selected.minMs !== undefined || selected.maxMs !== undefined) && bin.toMs > (selected.minMs ?? 0) && bin.fromMs <= (selected.maxMs ?? Number.POSITIVE_INFINITY);
  const detail = captionDetail(durations);
  // The scale: where the first bar starts, the middle one starts and the last one ends.
  const labels = bins.length === 0 ? [] : [bins[0]!.fromMs, ...(bins.length > 2 ? [bins[Math.floor(bins.length / 2)]!.fromMs] : []), bins[bins.length - 1]!.toMs];

  return (
    <figure class="chart duration-histogram">
      <figcaption class="chart-title" title={`Duration distribution (${detail})`}>
        Duration distribution <span class="muted">({detail})</span>
      </figcaption>
      {bins.length === 0 ? (
        // In the plot's room, as the placeholder was: what sits below does not move.
        <PlotMessage>No occurrence matches.</PlotMessage>
      ) : (
        <>
          <svg
            ref={svgRef}
            class="histogram duration-brush"
            viewBox={`0 0 ${width} ${height}`}
            preserveAspectRatio="none"
            role="img"
            aria-label="Occurrences per duration; drag to select a duration range"
            onPointerDown={(event) => {
              event.preventDefault();
              (event.currentTarget as Element).setPointerCapture?.(event.pointerId);
              const index = binAt(event.clientX);
              setDrag({ start: index, end: index });
            }}
            onPointerMove={(event) => drag && setDrag({ ...drag, end: binAt(event.clientX) })}
            onPointerUp={finish}
            onPointerCancel={() => setDrag(undefined)}
          >
            <line x1={0} x2={width} y1={height} y2={height} class="histogram-axis" />
            {bins.map((bin, index) => {
              const total = (bin.count / max) * height;
              const errors = (bin.errorCount / max) * height;
              const shaded = inSelection(bin, index);
              return (
                <g key={bin.fromMs} data-from-ms={bin.fromMs} data-to-ms={bin.toMs}>
                  <title>{`${formatDurationMs(bin.fromMs)} – ${formatDurationMs(bin.toMs)}: ${formatCount(bin.count)}${bin.errorCount > 0 ? `, ${formatCount(bin.errorCount)} errors` : ''}`}</title>
                  <rect x={index * barWidth} y={0} width={barWidth} height={height} class={shaded ? 'duration-selected' : 'histogram-hover'} />
                  {bin.count > 0 ? <rect x={index * barWidth + gap / 2} y={height - Math.max(total, 1)} width={Math.max(barWidth - gap, 0.5)} height={Math.max(total, 1)} class="duration-bar" /> : null}
                  {bin.errorCount > 0 ? <rect x={index * barWidth + gap / 2} y={height - Math.max(errors, 1)} width={Math.max(barWidth - gap, 0.5)} height={Math.max(errors, 1)} class="duration-bar-error" /> : null}
                </g>
              );
            })}
          </svg>
          <div class="histogram-scale muted">
            {labels.map((valueMs) => (
              <span key={valueMs}>{formatDurationMs(valueMs)}</span>
            ))}
          </div>
        </>
      )}
    </figure>
  );
}

/**
 * Stands in for the histogram while its data loads, in its room (the list below loads separately;
 * both captions keep to one line: styles.css).
 */
export function DurationHistogramPlaceholder() {
  return <HistogramPlaceholder class="duration-histogram" caption="Duration distribution" />;
}
