/** Where a service definition comes from, as the install and update forms hold it. */
export interface DefinitionSourceValue {
  /** `file`, `url` or `text` (a file's content lands in `text`). */
  readonly source: string;
  readonly url: string;
  readonly text: string;
}

/** Why `value` names no definition to send, at the field to say it at; undefined when it names one. */
export function definitionProblem(
  value: DefinitionSourceValue,
): { field: string; message: string } | undefined {
  if (value.source === 'url') {
    const url = value.url.trim();
    let parsed: URL | undefined;
    try {
      parsed = new URL(url);
    } catch {
      // Said below.
    }
    if (!parsed || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')) {
      return {
        field: 'url',
        message:
          url === ''
            ? 'Give the address of the definition (http:// or https://).'
            : 'The URL is a full http:// or https:// address (e.g. https://api.example.com/openapi.json).',
      };
    }
    return undefined;
  }
  if (value.text.trim() !== '') return undefined;
  return value.source === 'file'
    ? { field: 'file', message: 'Choose a file (an empty file holds no definition).' }
    : { field: 'text', message: 'Paste the definition: the field is empty.' };
}

/**
 * The fields that pick a definition: from a file, a URL or pasted text. Their ids start with
 * `prefix` (`install-source`, `update-url`, …), so each form keeps labels of its own.
 */
export function DefinitionSource({
  prefix,
  label,
  value,
  onChange,
  problem,
}: {
  prefix: string;
  label: string;
  value: DefinitionSourceValue;
  onChange: (next: DefinitionSourceValue) => void;
  /** What is wrong, said at its field (from {@link definitionProblem}, once sending was tried). */
  problem?: { field: string; message: string } | undefined;
}) {
  const problemId = `${prefix}-source-problem`;
  const invalid = (field: string) =>
    problem?.field === field ? { 'aria-invalid': 'true' as const, 'aria-describedby': problemId } : {};
  return (
    <>
      <label for={`${prefix}-source`}>{label}</label>
      <select
        id={`${prefix}-source`}
        value={value.source}
        onChange={(e) => onChange({ ...value, source: (e.target as HTMLSelectElement).value })}
      >
        <option value="file">a file</option>
        <option value="url">a URL</option>
        <option value="text">pasted text</option>
      </select>
      {value.source === 'url' ? (
        <>
          <label for={`${prefix}-url`}>URL</label>
          <input
            id={`${prefix}-url`}
            {...invalid('url')}
            type="url"
            value={value.url}
            onInput={(e) => onChange({ ...value, url: (e.target as HTMLInputElement).value })}
          />
        </>
      ) : value.source === 'file' ? (
        <>
          <label for={`${prefix}-file`}>File</label>
          <input
            id={`${prefix}-file`}
            {...invalid('file')}
            type="file"
            onChange={async (e) => {
              const file = (e.target as HTMLInputElement).files?.[0];
              if (file) onChange({ ...value, text: await file.text() });
            }}
          />
        </>
      ) : (
        <>
          <label for={`${prefix}-text`}>Definition</label>
          <textarea
            id={`${prefix}-text`}
            {...invalid('text')}
            class="code"
            value={value.text}
            onInput={(e) => onChange({ ...value, text: (e.target as HTMLTextAreaElement).value })}
          />
        </>
      )}
      {problem &&
      problem.field === (value.source === 'url' ? 'url' : value.source === 'file' ? 'file' : 'text') ? (
        <p id={problemId} class="error field-problem" role="alert">
          {problem.message}
        </p>
      ) : null}
    </>
  );
}
