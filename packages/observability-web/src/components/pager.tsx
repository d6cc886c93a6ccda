import type { ComponentChildren } from 'preact';

/** Newer and older pages of a list, newest first; a button without a target is disabled. `children` come first (a count, a badge). */
export function Pager({ toNewer, toOlder, newerLabel = 'Newest', children }: { toNewer: (() => void) | undefined; toOlder: (() => void) | undefined; newerLabel?: string; children?: ComponentChildren }) {
  return (
    <nav class="pager" aria-label="Pages">
      {children}
      <button type="button" class="button button-small" disabled={toNewer === undefined} onClick={toNewer}>
        {newerLabel}
      </button>
      <button type="button" class="button button-small" disabled={toOlder === undefined} onClick={toOlder}>
        Older
      </button>
    </nav>
  );
}
