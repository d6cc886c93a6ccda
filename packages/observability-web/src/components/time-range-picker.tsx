import { useEffect, useState } from 'preact/hooks';
import { rangePresets, resolveRange, type RangePresetKey, type TimeRange } from '../state/global-filters.js';
import { ApplyButton } from './filter-input.js';

// datetime-local inputs hold wall-clock text without a zone; the dashboard works in UTC.
const toInputValue = (ms: number) => new Date(ms).toISOString().slice(0, 16);
const fromInputValue = (value: string) => Date.parse(`${value}:00Z`);

/** Presets ("last hour") or a custom UTC range; the choice is written to the URL by the caller. */
export function TimeRangePicker({ range, onChange }: { range: TimeRange; onChange: (range: TimeRange) => void }) {
  const [custom, setCustom] = useState(range.kind === 'custom');
  const resolved = resolveRange(range, Date.now());
  const [fromText, setFromText] = useState(toInputValue(resolved.fromMs));
  const [toText, setToText] = useState(toInputValue(resolved.toMs));
  const [problem, setProblem] = useState<string | undefined>();

  // Follows the range's value, not the object: the URL is parsed again on every navigation (a
  // service filter changed, say), and a custom form just opened must stay open.
  const rangeValue = range.kind === 'custom' ? `${range.fromMs}/${range.toMs}` : range.preset;
  useEffect(() => {
    setCustom(range.kind === 'custom');
    if (range.kind === 'custom') {
      setFromText(toInputValue(range.fromMs));
      setToText(toInputValue(range.toMs));
    }
  }, [rangeValue]);

  return (
    <div class="range-picker">
      <label class="field-inline">
        <span class="visually-hidden">Time range</span>
        <select
          aria-label="Time range"
          value={custom ? 'custom' : range.kind === 'preset' ? range.preset : 'custom'}
          onChange={(event) => {
            const value = event.currentTarget.value;
            if (value === 'custom') {
              setCustom(true);
              return;
            }
            setCustom(false);
            onChange({ kind: 'preset', preset: value as RangePresetKey });
          }}
        >
          {rangePresets.map((preset) => (
            <option key={preset.key} value={preset.key}>
              {preset.label}
            </option>
          ))}
          <option value="custom">Custom range…</option>
        </select>
      </label>
      {custom ? (
        <form
          class="range-custom"
          aria-label="Custom range"
          onSubmit={(event) => {
            event.preventDefault();
            const fromMs = fromInputValue(fromText);
            const toMs = fromInputValue(toText);
            if (Number.isNaN(fromMs) || Number.isNaN(toMs)) setProblem('Enter both ends of the range.');
            else if (fromMs > toMs) setProblem('The start must not be after the end.');
            else {
              setProblem(undefined);
              onChange({ kind: 'custom', fromMs, toMs });
            }
          }}
        >
          <label class="field-inline">
            From (UTC)
            <input type="datetime-local" name="from" value={fromText} onInput={(event) => setFromText(event.currentTarget.value)} required />
          </label>
          <label class="field-inline">
            To (UTC)
            <input type="datetime-local" name="to" value={toText} onInput={(event) => setToText(event.currentTarget.value)} required />
          </label>
          <ApplyButton />
          {problem ? <span class="field-error" role="alert">{problem}</span> : null}
        </form>
      ) : null}
    </div>
  );
}
