import type { CyrnelClient } from '@cyrnel/client';
import type { ServicePolicy } from '@cyrnel/sdk/api';
import { useEffect, useState } from 'preact/hooks';
import { ErrorIssues } from './error-issues';
import { ErrorLine } from './error-line';
import { parseJsonObject } from './json-object';
import { useAction } from './use-action';

const EXAMPLE =
  '{ "default": "ask", "byAnnotation": { "readOnly": "allow" }, "tools": { "someTool": "block" } }';

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
    const policy = parseJsonObject(text ?? '', 'The policy', { example: EXAMPLE });
    if (policy instanceof Error) return setError(policy);
    void run(async () => {
      show(await client.services.setPolicy(serviceId, policy as ServicePolicy));
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
      <ErrorIssues error={error} testId="policy-issues" />
      <div class="row">
        <button type="submit" disabled={busy || text === undefined}>
          Save policy
        </button>
        {saved ? <span class="pill on">saved</span> : null}
      </div>
    </form>
  );
}
