import type { ComponentChildren } from 'preact';
import { useSession } from '../api/session.js';
import { navigate, useLocation } from '../state/location.js';
import { hrefWithView } from '../state/links.js';
import { refreshAll } from '../state/refresh.js';
import { useGlobalFilters } from '../state/use-global-filters.js';
import { FilterSelects } from './filter-selects.js';
import { FindTrace } from './find-trace.js';
import { Link } from './link.js';
import { TimeRangePicker } from './time-range-picker.js';

const sections = [
  { path: '/services', label: 'Services' },
  { path: '/occurrences', label: 'Occurrences' },
  { path: '/errors', label: 'Errors' },
  { path: '/logs', label: 'Logs' },
  { path: '/database', label: 'Database' },
  { path: '/dependencies', label: 'Dependencies' },
  { path: '/usage', label: 'Usage' },
  { path: '/alerts', label: 'Alerts' },
  { path: '/health', label: 'Health' },
  { path: '/settings', label: 'Settings' },
];

/**
 * The signed-in frame: navigation, the global time range and filters, and the page. Pages that
 * do not read the range (settings) leave the view controls out; health keeps only Refresh.
 */
export function Layout({
  title,
  children,
  actions,
  controls = 'view',
  pageService,
}: {
  title: string;
  children: ComponentChildren;
  actions?: ComponentChildren;
  controls?: 'view' | 'refresh' | 'none';
  /** A page about one service: the service picker shows it, and choosing another goes there. */
  pageService?: { name: string; choose: (service: string | undefined) => void };
}) {
  const { user, signOut } = useSession();
  const { pathname } = useLocation();
  const { filters, update } = useGlobalFilters();
  const active = sections.find((section) => pathname === section.path || pathname.startsWith(`${section.path}/`))?.path ?? (pathname.startsWith('/traces') ? '/occurrences' : '/services');
  return (
    <div class="shell">
      <header class="topbar">
        <Link href={hrefWithView('/services')} class="brand">
          <span class="brand-mark" aria-hidden="true" />
          Observability
        </Link>
        <nav class="nav" aria-label="Main">
          {sections.map((section) => (
            <Link key={section.path} href={section.path === '/settings' ? '/settings' : hrefWithView(section.path)} class={section.path === active ? 'nav-link nav-link-active' : 'nav-link'} aria-current={section.path === active ? 'page' : undefined}>
              {section.label}
            </Link>
          ))}
        </nav>
        <FindTrace />
        <div class="user">
          <span class="user-name" title={user?.email}>
            {user?.name} <span class="badge">{user?.role}</span>
          </span>
          <button
            type="button"
            class="button button-small"
            onClick={async () => {
              await signOut();
              navigate('/login', { replace: true });
            }}
          >
            Sign out
          </button>
        </div>
      </header>
      <div class="viewbar">
        <h1 class="page-title">{title}</h1>
        <div class="view-controls">
          {controls === 'view' ? (
            <>
              <FilterSelects
                service={pageService?.name ?? filters.service}
                environment={filters.environment}
                apply={(change) => ('service' in change && pageService ? pageService.choose(change.service) : update(change))}
              />
              <TimeRangePicker range={filters.range} onChange={(range) => update({ range })} />
            </>
          ) : null}
          {controls !== 'none' ? (
            <button type="button" class="button button-small" onClick={refreshAll} title="Reload with the range re-anchored to now">
              Refresh
            </button>
          ) : null}
          {actions}
        </div>
      </div>
      <main class="content">{children}</main>
    </div>
  );
}
