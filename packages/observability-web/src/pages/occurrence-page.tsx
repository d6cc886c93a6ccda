import type { Occurrence } from '../api/api-types.js';
import { useApi } from '../api/use-api.js';
import { DataState } from '../components/data-state.js';
import { Layout } from '../components/layout.js';
import { Link } from '../components/link.js';
import { OccurrenceFields } from '../components/occurrence-fields.js';
import { hrefWithView, serviceHref } from '../state/links.js';
import type { RouteParams } from '../state/routes.js';

/** One occurrence in full, with a link to its trace. */
export function OccurrencePage({ params }: { params: RouteParams }) {
  const state = useApi<Occurrence>(`/api/v1/occurrences/${encodeURIComponent(params.id!)}`);
  return (
    <Layout title="Occurrence">
      <DataState state={state}>
        {(occurrence) => (
          <>
            <p class="section-links">
              <Link class="button button-primary" href={hrefWithView(`/traces/${occurrence.traceId}`, { span: occurrence.spanId })}>
                View trace
              </Link>
              <Link href={hrefWithView(serviceHref(occurrence.service))}>Service {occurrence.service}</Link>
            </p>
            <OccurrenceFields occurrence={occurrence} />
          </>
        )}
      </DataState>
    </Layout>
  );
}
