import type { CyrnelClient } from '@cyrnel/client';
import type { JSX } from 'preact';
import { ApprovalPage } from './pages/approval-page';
import { ApprovalsPage } from './pages/approvals-page';
import { ConnectPage } from './pages/connect-page';
import { ConnectionsPage } from './pages/connections-page';
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

/** The page of a route (`['services', 'weather']` → the service page of `weather`,
 * `['services', 'weather', 'connections']` → its connections). */
export function pageFor(route: readonly string[], client: CyrnelClient): JSX.Element {
  const [page, ...rest] = route;
  return page === 'services' && rest[0] && rest[1] === 'connections' ? (
    <ConnectionsPage client={client} serviceId={rest[0]} />
  ) : page === 'services' && rest[0] ? (
    <ServicePage client={client} id={rest[0]} />
  ) : page === 'services' ? (
    <ServicesPage client={client} />
  ) : page === 'tools' && rest[0] && rest[1] ? (
    <ToolPage client={client} serviceId={rest[0]} toolId={rest[1]} />
  ) : page === 'tools' ? (
    <ToolsPage client={client} />
  ) : page === 'playground' ? (
    <PlaygroundPage client={client} />
  ) : page === 'processes' && rest[0] ? (
    <ProcessPage client={client} id={Number(rest[0])} />
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
    <KeysPage client={client} />
  ) : page === 'connect' ? (
    <ConnectPage />
  ) : (
    <p class="empty">No such page.</p>
  );
}
