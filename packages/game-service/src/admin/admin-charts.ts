import { html, type Html } from './html.js';
import type { GameActivity, ActivityHour } from './admin-data.js';
import type { RunStatus } from '../runs/run-record.js';

// Inline SVG charts, drawn on the server: no script, no external request. Sizes are in the
// viewBox's units; the stylesheet scales the text up on narrow screens (admin-styles.ts).
const width = 600;
const height = 240;
const margin = { top: 14, right: 10, bottom: 38, left: 58 };
const plotWidth = width - margin.left - margin.right;
const plotHeight = height - margin.top - margin.bottom;
/** Horizontal grid lines (besides zero). */
const gridLines = 4;
/** An hour label every this many hours; every other one is dropped on narrow screens. */
const labelEveryHours = 6;

const statusLines: ReadonlyArray<{ status: RunStatus; label: string }> = [
  { status: 'accepted', label: 'Accepted' },
  { status: 'rejected', label: 'Rejected' },
  { status: 'flagged', label: 'Flagged' },
];

function total(hour: ActivityHour): number {
  return hour.accepted + hour.flagged + hour.rejected;
}

/** The smallest of 1, 2, 2.5, 5 × 10^n at or above `value`, divisible into the grid's steps. */
function niceCeiling(value: number): number {
  if (value <= gridLines) return gridLines;
  const magnitude = 10 ** Math.floor(Math.log10(value / gridLines));
  const step = [1, 2, 2.5, 5, 10].map((f) => f * magnitude).find((s) => s * gridLines >= value && Number.isInteger(s))!;
  return step * gridLines;
}

/** A count as an axis reads it: 950, 1.2k, 35k. */
function compactCount(value: number): string {
  if (value < 1_000) return String(value);
  const thousands = value / 1_000;
  return `${Number.isInteger(thousands) || thousands >= 10 ? Math.round(thousands) : thousands.toFixed(1)}k`;
}

function hourLabel(iso: string): { text: string; major: boolean } | undefined {
  const date = new Date(iso);
  const hour = date.getUTCHours();
  if (hour % labelEveryHours !== 0) return undefined;
  if (hour === 0) return { text: date.toLocaleDateString('en-GB', { day: 'numeric', month: 'short', timeZone: 'UTC' }), major: true };
  return { text: `${String(hour).padStart(2, '0')}:00`, major: hour % (2 * labelEveryHours) === 0 };
}

function hourSummary(hour: ActivityHour): string {
  const from = hour.startsAt.slice(0, 13).replace('T', ' ');
  return `${from}:00 UTC: ${total(hour)} runs (${hour.accepted} accepted, ${hour.rejected} rejected, ${hour.flagged} flagged)`;
}

/** Axes, grid and hour labels shared by both charts; `slot` is the width of one hour. */
function frame(hours: readonly ActivityHour[], ceiling: number, slot: number): Html {
  const y = (value: number) => margin.top + plotHeight - (value / ceiling) * plotHeight;
  const grid = Array.from({ length: gridLines + 1 }, (_, i) => (ceiling / gridLines) * i);
  return html`${grid.map(
    (value) => html`<line class="grid${value === 0 ? ' axis' : ''}" x1="${margin.left}" x2="${width - margin.right}" y1="${y(value)}" y2="${y(value)}"/>
<text class="y-label" x="${margin.left - 8}" y="${y(value)}">${compactCount(value)}</text>`,
  )}${hours.map((hour, i) => {
    const label = hourLabel(hour.startsAt);
    if (!label) return '';
    const x = margin.left + i * slot;
    return html`<line class="tick" x1="${x}" x2="${x}" y1="${margin.top + plotHeight}" y2="${margin.top + plotHeight + 5}"/>
<text class="x-label${label.major ? '' : ' minor'}" x="${x}" y="${height - 8}">${label.text}</text>`;
  })}`;
}

/** Invisible full-height columns whose titles give each hour's exact counts on hover. */
function hoverColumns(hours: readonly ActivityHour[], slot: number): Html {
  return html`${hours.map(
    (hour, i) => html`<rect class="hover" x="${margin.left + i * slot}" y="${margin.top}" width="${slot}" height="${plotHeight}"><title>${hourSummary(hour)}</title></rect>`,
  )}`;
}

function runsPerHourChart(hours: readonly ActivityHour[]): Html {
  const slot = plotWidth / hours.length;
  const ceiling = niceCeiling(Math.max(0, ...hours.map(total)));
  const barWidth = Math.max(1, slot * 0.75);
  return html`<svg class="chart" viewBox="0 0 ${width} ${height}" role="img" aria-labelledby="runs-per-hour-title">
${frame(hours, ceiling, slot)}
${hours.map((hour, i) => {
  const barHeight = (total(hour) / ceiling) * plotHeight;
  return barHeight === 0
    ? ''
    : html`<rect class="bar" x="${(margin.left + i * slot + (slot - barWidth) / 2).toFixed(2)}" y="${(margin.top + plotHeight - barHeight).toFixed(2)}" width="${barWidth.toFixed(2)}" height="${barHeight.toFixed(2)}"/>`;
})}
${hoverColumns(hours, slot)}
</svg>`;
}

function verdictsChart(hours: readonly ActivityHour[]): Html {
  const slot = plotWidth / hours.length;
  const ceiling = niceCeiling(Math.max(0, ...hours.flatMap((h) => [h.accepted, h.rejected, h.flagged])));
  const point = (i: number, value: number) => `${(margin.left + (i + 0.5) * slot).toFixed(2)},${(margin.top + plotHeight - (value / ceiling) * plotHeight).toFixed(2)}`;
  return html`<svg class="chart" viewBox="0 0 ${width} ${height}" role="img" aria-labelledby="verdicts-per-hour-title">
${frame(hours, ceiling, slot)}
${statusLines.map(({ status }) => html`<polyline class="line ${status}" points="${hours.map((hour, i) => point(i, hour[status])).join(' ')}"/>`)}
${hoverColumns(hours, slot)}
</svg>`;
}

/** The game page's two charts: runs per hour, and accepted / rejected / flagged per hour. */
export function activityCharts(activity: GameActivity): Html {
  const sums = { accepted: 0, rejected: 0, flagged: 0 };
  for (const hour of activity.hours) for (const { status } of statusLines) sums[status] += hour[status];
  const runs = sums.accepted + sums.rejected + sums.flagged;
  const caption = html`<p class="muted chart-caption">Last ${activity.hours.length} hours, one step per hour (UTC); hover for an hour's counts.</p>`;
  return html`<div class="charts">
<figure class="card chart-card"><figcaption><h2 id="runs-per-hour-title">Runs per hour</h2>
<ul class="legend"><li><span class="swatch total"></span>Runs: ${runs}</li></ul></figcaption>
${runsPerHourChart(activity.hours)}${caption}</figure>
<figure class="card chart-card"><figcaption><h2 id="verdicts-per-hour-title">Accepted, rejected and flagged per hour</h2>
<ul class="legend">${statusLines.map(({ status, label }) => html`<li><span class="swatch ${status}"></span>${label}: ${sums[status]}</li>`)}</ul></figcaption>
${verdictsChart(activity.hours)}${caption}</figure>
</div>`;
}
