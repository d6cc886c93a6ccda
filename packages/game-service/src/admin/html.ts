/**
 * HTML templating that escapes by default: every value interpolated into an `html` template is
 * escaped unless it is itself an `Html` fragment built by `html`. There is no way to splice raw
 * user data into a page.
 */
export class Html {
  readonly #text: string;
  private constructor(text: string) {
    this.#text = text;
  }
  toString(): string {
    return this.#text;
  }
  /** For this module only: wraps text already known to be safe. */
  static fromTrusted(text: string): Html {
    return new Html(text);
  }
}

const escapes: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;', '`': '&#96;' };

/** Escapes text for use in element content and quoted attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"'`]/g, (char) => escapes[char]!);
}

type Interpolation = Html | string | number | boolean | null | undefined | readonly Interpolation[];

function render(value: Interpolation): string {
  if (value === null || value === undefined || value === false) return '';
  if (value instanceof Html) return value.toString();
  if (Array.isArray(value)) return value.map(render).join('');
  return escapeHtml(String(value));
}

/** The tagged template: `html\`<p>${name}</p>\`` escapes `name`; arrays of fragments are joined. */
export function html(strings: TemplateStringsArray, ...values: Interpolation[]): Html {
  let out = strings[0]!;
  values.forEach((value, i) => {
    out += render(value) + strings[i + 1]!;
  });
  return Html.fromTrusted(out);
}
