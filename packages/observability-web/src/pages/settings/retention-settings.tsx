import { useEffect, useState } from 'preact/hooks';
import { apiPut } from '../../api/api-client.js';
import type { RetentionResponse } from '../../api/api-types.js';
import { useApi } from '../../api/use-api.js';
import { DataState } from '../../components/data-state.js';
import { FormField } from '../../components/form-field.js';
import { useSubmit } from '../../components/use-submit.js';

/** How many days of occurrences and rollups the service keeps. Administrators only. */
export function RetentionSettings() {
  const retention = useApi<RetentionResponse>('/api/v1/admin/retention');
  const [days, setDays] = useState('');
  const [saved, setSaved] = useState(false);
  useEffect(() => {
    if (retention.data) setDays(String(retention.data.days));
  }, [retention.data]);
  const { busy, error, submit } = useSubmit(async () => {
    setSaved(false);
    await apiPut<RetentionResponse>('/api/v1/admin/retention', { days: Number(days) });
    setSaved(true);
    retention.reload();
  });
  return (
    <div class="settings-section">
      <DataState state={retention}>
        {() => (
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
        )}
      </DataState>
    </div>
  );
}
