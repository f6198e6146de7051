import type { CreatedKey } from '@cyrnel/sdk/api';
import { useState } from 'preact/hooks';

/**
 * A key just created, shown this once: the server keeps only its hash, and the page holds it in
 * memory only (not in storage), so leaving the page or "Done" forgets it. Copied through the
 * clipboard API; where the browser refuses, the text can still be selected.
 */
export function NewKey({ created, onDone }: { created: CreatedKey; onDone: () => void }) {
  const [copied, setCopied] = useState<'yes' | 'failed' | undefined>();
  const copy = () =>
    navigator.clipboard.writeText(created.key).then(
      () => setCopied('yes'),
      () => setCopied('failed'),
    );
  return (
    <section class="new-key" aria-label="New key" data-testid="new-key">
      <p>
        <strong>
          The key {created.name} ({created.role}): copy it now, it is not shown again.
        </strong>
      </p>
      <p>
        <code data-testid="new-key-value">{created.key}</code>
      </p>
      <div class="row">
        <button type="button" onClick={() => void copy()}>
          Copy the key
        </button>
        <button type="button" class="secondary" onClick={onDone}>
          Done
        </button>
        <span role="status">
          {copied === 'yes'
            ? 'Copied.'
            : copied === 'failed'
              ? 'The browser refused to copy: select the key and copy it.'
              : ''}
        </span>
      </div>
    </section>
  );
}
