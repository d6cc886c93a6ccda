import { useState } from 'preact/hooks';
import type { DependenciesResponse } from '../api/api-types.js';
import { useApi } from '../api/use-api.js';
import { ServiceMap } from '../charts/service-map.js';
import { DataState } from '../components/data-state.js';
import { Layout } from '../components/layout.js';
import { Link } from '../components/link.js';
import { formatCount, formatDurationMs, formatPercent } from '../format.js';
import { hrefWithView, serviceHref } from '../state/links.js';
import { useGlobalFilters } from '../state/use-global-filters.js';

/** Who calls whom: a service map and the edges as a table. */
export function DependenciesPage() {
  const { apiQuery } = useGlobalFilters();
  return (
    <Layout title="Dependencies">
      <DependencyView query={apiQuery} />
    </Layout>
  );
}

/** Edges listed before "Show all": the busiest, which the answer puts first. */
const edgesShownFirst = 50;

/** The map and table of one dependencies answer; shared by the service page's tab. */
export function DependencyView({ query }: { query: Record<string, string> }) {
  const state = useApi<DependenciesResponse>('/api/v1/dependencies', query);
  const [showAll, setShowAll] = useState(false);
  return (
    <DataState state={state} empty={(data) => data.edges.length === 0}>
      {(data) => (
        <>
          <section class="section" aria-label="Service map">
            <ServiceMap edges={data.edges} />
          </section>
          <div class="table-wrap">
            <table class="table" aria-label="Dependencies">
              <thead>
                <tr>
                  <th>Caller</th>
                  <th>Callee</th>
                  <th>Kind</th>
                  <th class="num">Calls</th>
                  <th class="num">Error rate</th>
                  <th class="num">p50</th>
                  <th class="num">p95</th>
                </tr>
              </thead>
              <tbody>
                {(showAll ? data.edges : data.edges.slice(0, edgesShownFirst)).map((edge) => (
                  <tr key={`${edge.source}->${edge.target}`}>
                    <td>
                      <Link href={hrefWithView(serviceHref(edge.source))}>{edge.source}</Link>
                    </td>
                    <td>{edge.targetKind === 'service' ? <Link href={hrefWithView(serviceHref(edge.target))}>{edge.target}</Link> : edge.target}</td>
                    <td>{edge.targetKind}</td>
                    <td class="num">{formatCount(edge.count)}</td>
                    <td class={edge.errorCount > 0 ? 'num bad' : 'num'}>{formatPercent(edge.count ? edge.errorCount / edge.count : 0)}</td>
                    <td class="num">{formatDurationMs(edge.p50Ms)}</td>
                    <td class="num">{formatDurationMs(edge.p95Ms)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          {!showAll && data.edges.length > edgesShownFirst ? (
            <p class="pager">
              <span>
                The {edgesShownFirst} busiest of {data.edges.length} edges.
              </span>
              <button type="button" class="button button-small" onClick={() => setShowAll(true)}>
                Show all
              </button>
            </p>
          ) : null}
        </>
      )}
    </DataState>
  );
}
