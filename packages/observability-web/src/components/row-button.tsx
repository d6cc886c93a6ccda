import type { ComponentChildren } from 'preact';

/** A small action button beside a table row or a notice (Revoke, Remove, Done…); `danger` for one that removes or locks out. */
export function RowButton({ danger, onClick, children }: { danger?: boolean; onClick: () => unknown; children: ComponentChildren }) {
  return (
    <button type="button" class={danger ? 'button button-small button-danger' : 'button button-small'} onClick={onClick}>
      {children}
    </button>
  );
}
