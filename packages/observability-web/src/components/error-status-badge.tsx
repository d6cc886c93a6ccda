import type { ErrorGroupStatus } from '../api/api-types.js';

const statusClass: Record<ErrorGroupStatus, string> = {
  open: 'badge badge-bad',
  regressed: 'badge badge-bad badge-strong',
  resolved: 'badge badge-good',
  ignored: 'badge',
};

/** An error group's status as a badge: unresolved ones in red, regressed ones emphasized. */
export function ErrorStatusBadge({ status }: { status: ErrorGroupStatus }) {
  return <span class={statusClass[status]}>{status}</span>;
}

/** The group's title: its type, else its message, else a note that the error gave neither. */
export function errorTitleOf(group: { type: string; message: string }): string {
  return group.type || group.message || '(no type or message)';
}
