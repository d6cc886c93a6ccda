import { useState } from 'preact/hooks';
import { apiPut } from '../../api/api-client.js';
import type { RetentionResponse } from '../../api/api-types.js';
import { useApi } from '../../api/use-api.js';
import { DataState } from '../../components/data-state.js';
import { FormField } from '../../components/form-field.js';
import { useSubmit } from '../../components/use-submit.js';

/** How many days of occurrences and rollups the service keeps. Administrators only. */
export function RetentionSettings() {
  const retention = useApi<RetentionResponse>('/api/v1/admin/retention');
  return (
    <div class="settings-section">
      <DataState state={retention}>{(data) => <RetentionForm initialDays={data.days} />}</DataState>
    </div>
  );
}

// The form starts from the stored value and then belongs to the user: nothing loaded later
// overwrites what they are typing.
function RetentionForm({ initialDays }: { initialDays: number }) {
  const [days, setDays] = useState(String(initialDays));
  const [saved, setSaved] = useState(false);
  const { busy, error, submit } = useSubmit(async () => {
    setSaved(false);
    const stored = await apiPut<RetentionResponse>('/api/v1/admin/retention', { days: Number(days) });
    setDays(String(stored.days));
    setSaved(true);
  });
  return (
    <form class="form form-inline" onSubmit={submit} aria-label="Retention">
      <FormField
        label="Keep data for (days)"
        type="number"
        name="days"
        min={1}
        max={3650}
        step={1}
        required
        value={days}
        hint="Older occurrences and rollups are deleted."
        onInput={(event) => {
          setDays(event.currentTarget.value);
          setSaved(false);
        }}
      />
      <button type="submit" class="button button-primary" disabled={busy}>
        Save
      </button>
      {saved ? <span class="notice-inline" role="status">Saved.</span> : null}
      {error ? <p class="field-error" role="alert">{error}</p> : null}
    </form>
  );
}
