import { useMemo } from 'preact/hooks';
import type { ServicesResponse } from '../api/api-types.js';
import { useApi } from '../api/use-api.js';
import { useGlobalFilters } from '../state/use-global-filters.js';

/**
 * Service and environment filters. The choices are what reported in the chosen range (without
 * the filters themselves, so every choice stays visible); a value set by a shared link is kept
 * even when it has no data in this range.
 */
export function FilterSelects({ service, environment, apply }: { service: string | undefined; environment: string | undefined; apply: (change: { service?: string | undefined; environment?: string | undefined }) => void }) {
  const { apiQuery } = useGlobalFilters();
  const catalog = useApi<ServicesResponse>('/api/v1/services', { from: apiQuery.from, to: apiQuery.to });
  const { services, environments } = useMemo(() => {
    const serviceNames = new Set<string>();
    const environmentNames = new Set<string>();
    for (const row of catalog.data?.services ?? []) {
      serviceNames.add(row.service);
      for (const name of row.environments) environmentNames.add(name);
    }
    if (service) serviceNames.add(service);
    if (environment) environmentNames.add(environment);
    return { services: [...serviceNames].sort(), environments: [...environmentNames].sort() };
  }, [catalog.data, service, environment]);

  return (
    <div class="filters">
      <label class="field-inline">
        <span class="visually-hidden">Service</span>
        <select aria-label="Service filter" value={service ?? ''} onChange={(event) => apply({ service: event.currentTarget.value || undefined })}>
          <option value="">All services</option>
          <NameOptions names={services} />
        </select>
      </label>
      <label class="field-inline">
        <span class="visually-hidden">Environment</span>
        <select aria-label="Environment filter" value={environment ?? ''} onChange={(event) => apply({ environment: event.currentTarget.value || undefined })}>
          <option value="">All environments</option>
          <NameOptions names={environments} />
        </select>
      </label>
    </div>
  );
}

/** One `<option>` per name, the name as its value and text. */
export function NameOptions({ names }: { names: readonly string[] }) {
  return (
    <>
      {names.map((name) => (
        <option key={name} value={name}>
          {name}
        </option>
      ))}
    </>
  );
}
