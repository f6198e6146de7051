import type { CyrnelClient } from '@cyrnel/client';
import { type ConnectionRecord, DEFAULT_CONNECTION } from '@cyrnel/sdk/api';
import { useState } from 'preact/hooks';
import {
  choiceOfOwner,
  type KnownPrincipals,
  OwnerSelect,
  ownerOfChoice,
  SecretsField,
} from './connection-fields';
import { ErrorIssues } from './error-issues';
import { ErrorLine } from './error-line';
import { parseJsonObject } from './json-object';
import { useAction } from './use-action';

/**
 * Changing one connection (`PATCH /services/:serviceId/connections/:name`): replacing its whole set
 * of secrets (a JSON object, emptied from the page once sent) and, for an admin key, giving it to
 * another owner or sharing it (the `default` connection stays shared). `onChanged` reloads the list.
 */
export function ConnectionEditor({
  client,
  serviceId,
  record,
  principals,
  secretNames,
  onChanged,
  onClose,
}: {
  client: CyrnelClient;
  serviceId: string;
  record: ConnectionRecord;
  principals: KnownPrincipals;
  secretNames: readonly string[];
  onChanged: () => void;
  onClose: () => void;
}) {
  const [secrets, setSecrets] = useState('');
  const [owner, setOwner] = useState(choiceOfOwner(record.owner));
  const [done, setDone] = useState('');
  const secretsAction = useAction();
  const ownerAction = useAction();
  const replaceSecrets = (event: Event) => {
    event.preventDefault();
    setDone('');
    const parsed = parseJsonObject(secrets, 'The secrets field', { example: '{ "token": "…" }' });
    if (parsed instanceof Error) return secretsAction.setError(parsed);
    void secretsAction.run(async () => {
      try {
        await client.connections.update(serviceId, record.name, { secrets: parsed });
        setDone('Secrets replaced.');
        onChanged();
      } finally {
        setSecrets('');
      }
    });
  };
  const changeOwner = (event: Event) => {
    event.preventDefault();
    setDone('');
    void ownerAction.run(async () => {
      await client.connections.update(serviceId, record.name, ownerOfChoice(owner, principals));
      setDone('Owner changed.');
      onChanged();
    });
  };
  return (
    <section class="panel" aria-label={`Connection ${record.name}`}>
      <div class="row">
        <h3>Change {record.name}</h3>
        <button type="button" class="secondary" onClick={onClose}>
          Close
        </button>
        {done ? (
          <span class="pill on" role="status">
            {done}
          </span>
        ) : null}
      </div>
      <form aria-label="Replace the secrets" onSubmit={replaceSecrets}>
        <SecretsField
          id="connection-new-secrets"
          label="New secrets (JSON)"
          value={secrets}
          names={secretNames}
          onChange={setSecrets}
        />
        <ErrorLine error={secretsAction.error} />
        <ErrorIssues error={secretsAction.error} testId="connection-secrets-issues" />
        <div class="row">
          <button type="submit" disabled={secretsAction.busy || secrets.trim() === ''}>
            Replace the secrets
          </button>
        </div>
      </form>
      {record.name === DEFAULT_CONNECTION ? (
        <p class="muted">The default connection holds the service's own secrets: it stays shared.</p>
      ) : principals === undefined ? (
        <p class="muted">Only an admin key gives a connection to another owner.</p>
      ) : (
        <form aria-label="Change the owner" onSubmit={changeOwner}>
          <label for="connection-new-owner">Owner</label>
          <OwnerSelect id="connection-new-owner" value={owner} principals={principals} onChange={setOwner} />
          <ErrorLine error={ownerAction.error} />
          <div class="row">
            <button type="submit" disabled={ownerAction.busy || owner === choiceOfOwner(record.owner)}>
              Change the owner
            </button>
          </div>
        </form>
      )}
    </section>
  );
}
