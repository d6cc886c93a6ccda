import { useEffect, useRef, useState } from 'preact/hooks';

/**
 * An editable copy of `source` (a field's text, from the URL or from stored settings): it starts
 * as `source` and is reset when `source` changes, but never on mount, so text typed before the
 * page's effects have run is not overwritten with the value it started from.
 */
export function useEditableCopy<T>(source: T): [T, (value: T) => void] {
  const [value, setValue] = useState(source);
  const seen = useRef(source);
  useEffect(() => {
    if (Object.is(seen.current, source)) return;
    seen.current = source;
    setValue(source);
  }, [source]);
  return [value, setValue];
}
