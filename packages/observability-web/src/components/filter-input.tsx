import type { JSX } from 'preact';

type FilterInputProps = JSX.InputHTMLAttributes<HTMLInputElement> & { label: string; grow?: boolean; narrow?: boolean };

/** A toolbar filter: its label inline, then the text box (`grow` takes the spare width, `narrow` is for short values). */
export function FilterInput({ label, grow, narrow, ...input }: FilterInputProps) {
  return (
    <label class={grow ? 'field-inline grow' : 'field-inline'}>
      {label}
      <input class={narrow ? 'input input-narrow' : 'input'} {...input} />
    </label>
  );
}

/** The submit button of a filter toolbar. */
export function ApplyButton() {
  return (
    <button type="submit" class="button button-small">
      Apply
    </button>
  );
}
