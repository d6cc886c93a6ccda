/**
 * Stands in for a histogram (the `histogram` plot between a caption and a scale line) while its data
 * loads: the same frame, caption line, plot height and scale line, so whatever sits below it (loaded
 * separately) does not move when the histogram arrives.
 */
export function HistogramPlaceholder({ class: frameClass, caption }: { class: string; caption: string }) {
  return (
    <figure class={`chart ${frameClass}`} aria-busy="true">
      <figcaption class="chart-title">
        {caption} <span class="muted">(loading…)</span>
      </figcaption>
      <div class="histogram chart-loading" role="status" aria-live="polite">
        Loading…
      </div>
      <div class="histogram-scale muted">
        <span>{'\u00a0'}</span>
      </div>
    </figure>
  );
}
