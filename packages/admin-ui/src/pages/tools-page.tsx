import type { CyrnelClient } from '@cyrnel/client';
import type { ToolRecord } from '@cyrnel/sdk/api';
import { useEffect, useState } from 'preact/hooks';
import { ErrorLine } from '../components/error-line';
import { ToolTable } from '../components/tool-table';
import { useAction } from '../components/use-action';

/** `#/tools`: ranked search across services, by words of the task or a tool id, as you type. */
export function ToolsPage({ client }: { client: CyrnelClient }) {
  const [query, setQuery] = useState('');
  const [tools, setTools] = useState<ToolRecord[]>([]);
  const { error, run } = useAction();
  useEffect(() => {
    const timer = setTimeout(
      () =>
        void run(async () =>
          setTools(
            (await client.tools.list(query.trim() ? { query: query.trim(), limit: 20 } : { limit: 50 }))
              .items,
          ),
        ),
      200,
    );
    return () => clearTimeout(timer);
  }, [query]);
  return (
    <>
      <h1>Tools</h1>
      <label for="tool-search">Search (words of the task, or a tool id)</label>
      <input
        id="tool-search"
        type="text"
        value={query}
        onInput={(e) => setQuery((e.target as HTMLInputElement).value)}
      />
      <ErrorLine error={error} />
      <ToolTable tools={tools} />
    </>
  );
}
