import { useState } from 'preact/hooks';

/** Runs a form's action once at a time and keeps its error message for display. */
export function useSubmit(action: () => Promise<void>): { busy: boolean; error: string | undefined; submit: (event: Event) => Promise<void> } {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | undefined>();
  const submit = async (event: Event) => {
    event.preventDefault();
    if (busy) return;
    setBusy(true);
    setError(undefined);
    try {
      await action();
    } catch (caught) {
      setError(caught instanceof Error ? caught.message : String(caught));
    } finally {
      setBusy(false);
    }
  };
  return { busy, error, submit };
}
