import type { JSX } from 'preact';
import { homeOf, may, routeNeeds, type Session } from './components/access';
import { ApprovalPage } from './pages/approval-page';
import { ApprovalsPage } from './pages/approvals-page';
import { ConnectPage } from './pages/connect-page';
import { ConnectionsPage } from './pages/connections-page';
import { DashboardPage } from './pages/dashboard-page';
import { ForbiddenPage } from './pages/forbidden-page';
import { KeysPage } from './pages/keys-page';
import { ModulePage } from './pages/module-page';
import { ModulesPage } from './pages/modules-page';
import { PlaygroundPage } from './pages/playground-page';
import { ProcessPage } from './pages/process-page';
import { ProcessesPage } from './pages/processes-page';
import { ServicePage } from './pages/service-page';
import { ServicesPage } from './pages/services-page';
import { ToolPage } from './pages/tool-page';
import { ToolsPage } from './pages/tools-page';

/** The route shown for `route` (the hash's segments): the role's home page when there is none. */
export function effectiveRoute(route: readonly string[], session: Session): readonly string[] {
  return route.length === 0 ? [homeOf(session.role)] : route;
}

/**
 * The page of a route (`['services', 'weather']` → the service page of `weather`,
 * `['services', 'weather', 'connections']` → its connections); a page the session's key may not
 * open says so, without asking the server.
 */
export function pageFor(route: readonly string[], session: Session): JSX.Element {
  const { client, role } = session;
  const [page, ...rest] = route;
  const needs = routeNeeds(route);
  if (!may(role, needs)) return <ForbiddenPage role={role} needs={needs} page={page ?? ''} />;
  return page === 'services' && rest[0] && rest[1] === 'connections' ? (
    <ConnectionsPage client={client} serviceId={rest[0]} role={role} />
  ) : page === 'services' && rest[0] ? (
    <ServicePage client={client} id={rest[0]} role={role} />
  ) : page === 'services' ? (
    <ServicesPage client={client} />
  ) : page === 'tools' && rest[0] && rest[1] ? (
    <ToolPage client={client} serviceId={rest[0]} toolId={rest[1]} role={role} />
  ) : page === 'tools' ? (
    <ToolsPage client={client} />
  ) : page === 'playground' ? (
    <PlaygroundPage client={client} role={role} />
  ) : page === 'dashboard' ? (
    <DashboardPage client={client} />
  ) : page === 'processes' && rest[0] ? (
    <ProcessPage client={client} id={Number(rest[0])} role={role} />
  ) : page === 'processes' ? (
    <ProcessesPage client={client} />
  ) : page === 'approvals' && rest[0] ? (
    <ApprovalPage client={client} id={rest[0]} />
  ) : page === 'approvals' ? (
    <ApprovalsPage client={client} />
  ) : page === 'modules' && rest[0] ? (
    <ModulePage client={client} id={rest[0]} />
  ) : page === 'modules' ? (
    <ModulesPage client={client} />
  ) : page === 'keys' ? (
    <KeysPage client={client} open={session.open} />
  ) : page === 'connect' ? (
    <ConnectPage />
  ) : (
    <>
      <h1>No such page</h1>
      <p class="empty">
        Nothing is at this address: <a href={`#/${homeOf(role)}`}>go to the start page</a>.
      </p>
    </>
  );
}
