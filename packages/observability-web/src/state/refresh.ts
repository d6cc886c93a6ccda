import { useEffect, useState } from 'preact/hooks';

let tick = 0;
const listeners = new Set<(value: number) => void>();

/** Asks every page to reload its data, with relative ranges re-anchored to now. */
export function refreshAll(): void {
  tick += 1;
  for (const listener of listeners) listener(tick);
}

/** A number that changes on every refresh; pages put it in their data dependencies. */
export function useRefreshTick(): number {
  const [value, setValue] = useState(tick);
  useEffect(() => {
    listeners.add(setValue);
    return () => {
      listeners.delete(setValue);
    };
  }, []);
  return value;
}
