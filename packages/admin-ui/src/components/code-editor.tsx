import { useEffect, useRef, useState } from 'preact/hooks';

/**
 * The code editor: a text area at once, replaced by CodeMirror with TypeScript completions and
 * diagnostics once its chunk (and the language service worker) has loaded.
 */
export function CodeEditor({
  code,
  onChange,
  types,
}: {
  code: string;
  onChange: (code: string) => void;
  types: string | undefined;
}) {
  const [host, setHost] = useState<HTMLDivElement | null>(null);
  const [mounted, setMounted] = useState(false);
  // The editor starts from the text as it is when it loads, not as it was when loading began.
  const latest = useRef(code);
  latest.current = code;
  useEffect(() => {
    if (!host || types === undefined) return;
    let editor: { destroy(): void } | undefined;
    let cancelled = false;
    void import('../editor/editor').then(({ createEditor }) => {
      if (cancelled) return;
      editor = createEditor(host, latest.current, onChange, types);
      setMounted(true);
    });
    return () => {
      cancelled = true;
      editor?.destroy();
    };
  }, [host, types]);
  return (
    <>
      <label for="code">Code (TypeScript)</label>
      {mounted ? null : (
        <textarea
          id="code"
          class="code"
          spellcheck={false}
          value={code}
          onInput={(e) => {
            // At once, not at the next render: the editor may load in between and start from it.
            latest.current = (e.target as HTMLTextAreaElement).value;
            onChange(latest.current);
          }}
        />
      )}
      <div ref={setHost} class="editor" data-testid="editor" />
    </>
  );
}
