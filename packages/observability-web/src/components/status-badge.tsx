export function StatusBadge({ status }: { status: string }) {
  return <span class={status === 'error' ? 'badge badge-bad' : 'badge badge-good'}>{status}</span>;
}
