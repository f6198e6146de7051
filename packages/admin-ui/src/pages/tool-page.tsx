import type { CyrnelClient } from '@cyrnel/client';
import type { KeyRole, ToolDetail } from '@cyrnel/sdk/api';
import { useEffect, useState } from 'preact/hooks';
import { ErrorLine } from '../components/error-line';
import { Markdown } from '../components/markdown';
import { Pill } from '../components/pill';
import { PolicyPill } from '../components/policy-pill';
import { useAction } from '../components/use-action';

/**
 * `#/tools/<service>/<tool>`: one tool: enable/disable, its policy, annotations and labels, its
 * docs and its input/output schemas.
 */
export function ToolPage({
  client,
  serviceId,
  toolId,
  role,
}: {
  client: CyrnelClient;
  serviceId: string;
  toolId: string;
  /** Only an admin key turns a tool on and off. */
  role: KeyRole;
}) {
  const [tool, setTool] = useState<ToolDetail | undefined>();
  const [docs, setDocs] = useState('');
  const { error, busy, run } = useAction();
  useEffect(
    () =>
      void run(async () => {
        setTool(await client.tools.get(serviceId, toolId));
        setDocs(await client.tools.docs(serviceId, toolId));
      }),
    [serviceId, toolId],
  );
  if (!tool) return <ErrorLine error={error} />;
  return (
    <>
      <h1>
        {serviceId}.{toolId}
      </h1>
      <ErrorLine error={error} />
      <div class="row">
        <Pill on={tool.enabled} yes="enabled" no="disabled" />
        <span data-testid="tool-callable">
          <Pill on={tool.effectivelyEnabled} yes="callable" no="not callable" />
          {tool.enabled && !tool.effectivelyEnabled ? (
            <span class="muted"> (its service is disabled, or its adapter is not active)</span>
          ) : null}
        </span>
        {role === 'admin' ? (
          <button
            type="button"
            disabled={busy}
            onClick={() =>
              run(async () => setTool(await client.tools.setEnabled(serviceId, toolId, !tool.enabled)))
            }
          >
            {tool.enabled ? 'Disable' : 'Enable'}
          </button>
        ) : null}
      </div>
      <p data-testid="tool-policy">
        Calls: <PolicyPill policy={tool.effectivePolicy} />{' '}
        <span class="muted">
          {tool.policy
            ? `(its own setting in the service's policy)`
            : "(from the service's rules or the server's default)"}
        </span>
        {' · '}annotations:{' '}
        {Object.entries(tool.annotations)
          .filter(([, value]) => value === true)
          .map(([name]) => name)
          .join(', ') || 'none'}
        {' · '}labels: {tool.labels.join(', ') || 'none'}
      </p>
      <h2>Docs</h2>
      <div data-testid="tool-docs">
        <Markdown text={docs} />
      </div>
      <div class="grid">
        <div>
          <h2>Input schema</h2>
          <pre>{JSON.stringify(tool.inputSchema, null, 2)}</pre>
        </div>
        <div>
          <h2>Output schema</h2>
          <pre>{JSON.stringify(tool.outputSchema, null, 2)}</pre>
        </div>
      </div>
    </>
  );
}
