import type { ServiceRow } from '../api/api-types.js';

/** Columns the services table sorts by; `sort=-p95` in the URL is p95, largest first. */
const serviceSortKeys = ['service', 'count', 'errorRate', 'p50Ms', 'p95Ms', 'p99Ms', 'apdex'] as const;
export type ServiceSortKey = (typeof serviceSortKeys)[number];

export interface ServiceSort {
  key: ServiceSortKey;
  descending: boolean;
}

/** Busiest first unless the URL says otherwise. */
export const defaultServiceSort: ServiceSort = { key: 'count', descending: true };

export function readServiceSort(value: string | null): ServiceSort {
  const descending = value?.startsWith('-') ?? false;
  const key = (descending ? value!.slice(1) : value) as ServiceSortKey;
  return serviceSortKeys.includes(key) ? { key, descending } : defaultServiceSort;
}

export function writeServiceSort(sort: ServiceSort): string {
  return `${sort.descending ? '-' : ''}${sort.key}`;
}

/** The sort after clicking a column: the same column flips; a new one starts with its natural order. */
export function nextServiceSort(current: ServiceSort, key: ServiceSortKey): ServiceSort {
  if (current.key === key) return { key, descending: !current.descending };
  return { key, descending: key !== 'service' };
}

/** Sorted rows; services without a figure (null latency) go last either way, then by name. */
export function sortServices(rows: readonly ServiceRow[], sort: ServiceSort): ServiceRow[] {
  const direction = sort.descending ? -1 : 1;
  return [...rows].sort((a, b) => {
    if (sort.key === 'service') return direction * a.service.localeCompare(b.service);
    const left = a[sort.key];
    const right = b[sort.key];
    if (left === null && right === null) return a.service.localeCompare(b.service);
    if (left === null) return 1;
    if (right === null) return -1;
    return direction * (left - right) || a.service.localeCompare(b.service);
  });
}
