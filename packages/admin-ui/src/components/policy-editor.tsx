import type { CyrnelClient } from '@cyrnel/client';
import { CyrnelHttpError } from '@cyrnel/client';
import type { ServicePolicy } from '@cyrnel/sdk/api';
import { useEffect, useState } from 'preact/hooks';
import { ErrorLine } from './error-line';
import { useAction } from './use-action';

const EXAMPLE =
  '{ "default": "ask", "byAnnotation": { "readOnly": "allow" }, "tools": { "someTool": "block" } }';

/** The server's validation issues of a refused policy (`details[]`: path and message). */
function Issues({ error }: { error: unknown }) {
  if (!(error instanceof CyrnelHttpError) || !Array.isArray(error.details)) return null;
  const issues = (error.details as { path?: unknown; message?: unknown }[]).filter(
    (issue) => typeof issue.message === 'string',
  );
  if (issues.length === 0) return null;
  return (
    <ul class="error" data-testid="policy-issues">
      {issues.map((issue, index) => (
        <li key={index}>
          {typeof issue.path === 'string' && issue.path ? <code>{issue.path}</code> : null}{' '}
          {String(issue.message)}
        </li>
      ))}
    </ul>
  );
}

/** A JSON object or the reason it is none. */
function parsePolicy(text: string): ServicePolicy | Error {
  try {
    const value: unknown = JSON.parse(text);
    if (value !== null && typeof value === 'object' && !Array.isArray(value)) return value as ServicePolicy;
    return new Error('The policy is a JSON object ({} for none).');
  } catch (error) {
    return new Error(`The policy is not JSON: ${(error as Error).message}`);
  }
}

/**
 * A service's policy rules as JSON (`GET`/`PUT /services/:id/policy`): checked as JSON here, the
 * rules by the server, whose messages are shown. `onSaved` runs once the server took them (the
 * effective policies of the service's tools changed).
 */
export function PolicyEditor({
  client,
  serviceId,
  onSaved,
}: {
  client: CyrnelClient;
  serviceId: string;
  onSaved?: () => void;
}) {
  const [text, setText] = useState<string | undefined>();
  const [saved, setSaved] = useState(false);
  const { error, busy, run, setError } = useAction();
  const show = (policy: ServicePolicy) => setText(JSON.stringify(policy, null, 2));
  useEffect(() => void run(async () => show(await client.services.getPolicy(serviceId))), [serviceId]);
  const save = (event: Event) => {
    event.preventDefault();
    setSaved(false);
    const policy = parsePolicy(text ?? '');
    if (policy instanceof Error) return setError(policy);
    void run(async () => {
      show(await client.services.setPolicy(serviceId, policy));
      setSaved(true);
      onSaved?.();
    });
  };
  return (
    <form aria-label="Policy" onSubmit={save}>
      <p class="muted">
        Each tool's calls are allowed, asked (the program waits for a person) or blocked: by its own entry in{' '}
        <code>tools</code>, else the strictest <code>byAnnotation</code> rule it matches, else{' '}
        <code>default</code>, else the server's default. For example: <code>{EXAMPLE}</code>
      </p>
      <label for="policy-json">Policy (JSON)</label>
      <textarea
        id="policy-json"
        class="code"
        spellcheck={false}
        value={text ?? ''}
        disabled={text === undefined}
        onInput={(event) => {
          setText((event.target as HTMLTextAreaElement).value);
          setSaved(false);
        }}
      />
      <ErrorLine error={error} />
      <Issues error={error} />
      <div class="row">
        <button type="submit" disabled={busy || text === undefined}>
          Save policy
        </button>
        {saved ? <span class="pill on">saved</span> : null}
      </div>
    </form>
  );
}
