import type { ComponentType } from 'preact';
import { useEffect } from 'preact/hooks';
import { redirectToLogin } from './api/api-client.js';
import { SessionProvider, useSession } from './api/session.js';
import { AcceptInvitationPage } from './pages/accept-invitation-page.js';
import { DatabasePage } from './pages/database-page.js';
import { DependenciesPage } from './pages/dependencies-page.js';
import { ErrorGroupPage } from './pages/error-group-page.js';
import { ErrorsPage } from './pages/errors-page.js';
import { AlertHistoryPage } from './pages/alerts/alert-history-page.js';
import { AlertsPage } from './pages/alerts/alerts-page.js';
import { HealthPage } from './pages/health-page.js';
import { LoginPage } from './pages/login-page.js';
import { LogsPage } from './pages/logs-page.js';
import { NotFoundPage } from './pages/not-found-page.js';
import { OccurrencePage } from './pages/occurrence-page.js';
import { OccurrencesPage } from './pages/occurrences-page.js';
import { PasswordResetPage } from './pages/password-reset-page.js';
import { ServicePage } from './pages/service-page.js';
import { ServicesPage } from './pages/services-page.js';
import { SettingsPage } from './pages/settings/settings-page.js';
import { SetupPage } from './pages/setup-page.js';
import { TracePage } from './pages/trace-page.js';
import { UsagePage } from './pages/usage-page.js';
import { navigate, useLocation } from './state/location.js';
import { matchRoute, type RouteParams } from './state/routes.js';

interface Route {
  pattern: string;
  page: ComponentType<{ params: RouteParams }>;
}

/** Pages anyone may open; everything else needs a session. */
const publicRoutes: Route[] = [
  { pattern: '/login', page: LoginPage },
  { pattern: '/setup', page: SetupPage },
  { pattern: '/reset-password', page: PasswordResetPage },
  { pattern: '/accept-invitation', page: AcceptInvitationPage },
];

const signedInRoutes: Route[] = [
  { pattern: '/services', page: ServicesPage },
  { pattern: '/services/:name', page: ServicePage },
  { pattern: '/services/:name/:tab', page: ServicePage },
  { pattern: '/occurrences', page: OccurrencesPage },
  { pattern: '/occurrences/:id', page: OccurrencePage },
  { pattern: '/traces/:traceId', page: TracePage },
  { pattern: '/errors', page: ErrorsPage },
  { pattern: '/errors/:groupId', page: ErrorGroupPage },
  { pattern: '/logs', page: LogsPage },
  { pattern: '/database', page: DatabasePage },
  { pattern: '/dependencies', page: DependenciesPage },
  { pattern: '/usage', page: UsagePage },
  { pattern: '/health', page: HealthPage },
  { pattern: '/alerts', page: AlertsPage },
  { pattern: '/alerts/history', page: AlertHistoryPage },
  { pattern: '/settings', page: SettingsPage },
  { pattern: '/settings/:section', page: SettingsPage },
];

function find(routes: Route[], pathname: string): { route: Route; params: RouteParams } | undefined {
  for (const route of routes) {
    const params = matchRoute(route.pattern, pathname);
    if (params) return { route, params };
  }
  return undefined;
}

function Router() {
  const { pathname, search } = useLocation();
  const { user } = useSession();
  const publicMatch = find(publicRoutes, pathname);
  const signedInMatch = publicMatch ? undefined : find(signedInRoutes, pathname);

  useEffect(() => {
    if (pathname === '/') navigate(`/services${search.size > 0 ? `?${search.toString()}` : ''}`, { replace: true });
    else if (!publicMatch && user === null) redirectToLogin();
  }, [pathname, user, publicMatch, search]);

  if (publicMatch) {
    const Page = publicMatch.route.page;
    return <Page params={publicMatch.params} />;
  }
  if (!user) return <div class="loading loading-page" role="status">Loading…</div>;
  if (!signedInMatch) return <NotFoundPage />;
  const Page = signedInMatch.route.page;
  return <Page key={signedInMatch.route.pattern} params={signedInMatch.params} />;
}

/** The dashboard: a session, then the page for the current path. */
export function App() {
  return (
    <SessionProvider>
      <Router />
    </SessionProvider>
  );
}
