import type { ComponentChildren } from 'preact';

/**
 * Stands in for a histogram (the `histogram` plot between a caption and a scale line) while its data
 * loads: the same frame, caption line, plot height and scale line, so whatever sits below it (loaded
 * separately) does not move when the histogram arrives. `legend`: an empty legend where the chart
 * has one in its caption, to take the same line.
 */
export function HistogramPlaceholder({ class: frameClass, caption, legend = false }: { class: string; caption: string; legend?: boolean }) {
  return (
    <figure class={`chart ${frameClass}`} aria-busy="true">
      <figcaption class="chart-title">
        {caption} <span class="muted">(loading…)</span>
        {legend ? <span class="legend histogram-legend" aria-hidden="true" /> : null}
      </figcaption>
      <PlotMessage loading>Loading…</PlotMessage>
    </figure>
  );
}

/**
 * A message in a histogram's plot room, over an empty scale line: what a histogram shows while it
 * loads (`loading`: announced as status) or when it has nothing to plot, so it takes the room the
 * plot will.
 */
export function PlotMessage({ loading = false, children }: { loading?: boolean; children: ComponentChildren }) {
  return (
    <>
      {loading ? (
        <div class="histogram chart-loading" role="status" aria-live="polite">
          {children}
        </div>
      ) : (
        <div class="histogram chart-message">{children}</div>
      )}
      <div class="histogram-scale muted">
        <span>{'\u00a0'}</span>
      </div>
    </>
  );
}
