import { useState } from 'preact/hooks';

/** Runs an action (such as a row's delete or change) and keeps its error message for display; a new run clears the old message. */
export function useAction(): { error: string | undefined; run: (action: () => Promise<unknown>) => Promise<void> } {
  const [error, setError] = useState<string | undefined>();
  const run = async (action: () => Promise<unknown>) => {
    setError(undefined);
    try {
      await action();
    } catch (caught) {
      setError(caught instanceof Error ? caught.message : String(caught));
    }
  };
  return { error, run };
}

/** Runs a form's action once at a time and keeps its error message for display. */
export function useSubmit(action: () => Promise<void>): { busy: boolean; error: string | undefined; submit: (event: Event) => Promise<void> } {
  const [busy, setBusy] = useState(false);
  const { error, run } = useAction();
  const submit = async (event: Event) => {
    event.preventDefault();
    if (busy) return;
    setBusy(true);
    await run(action);
    setBusy(false);
  };
  return { busy, error, submit };
}
