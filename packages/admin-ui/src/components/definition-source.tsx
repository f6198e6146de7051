/** Where a service definition comes from, as the install and update forms hold it. */
export interface DefinitionSourceValue {
  /** `file`, `url` or `text` (a file's content lands in `text`). */
  readonly source: string;
  readonly url: string;
  readonly text: string;
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
}: {
  prefix: string;
  label: string;
  value: DefinitionSourceValue;
  onChange: (next: DefinitionSourceValue) => void;
}) {
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
            class="code"
            value={value.text}
            onInput={(e) => onChange({ ...value, text: (e.target as HTMLTextAreaElement).value })}
          />
        </>
      )}
    </>
  );
}
