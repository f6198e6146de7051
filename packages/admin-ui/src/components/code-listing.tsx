import { useEffect, useRef } from 'preact/hooks';

/**
 * A program's code with line numbers, the lines in `marked` highlighted (the call a person
 * decides on, a plan's call sites) and the first of them scrolled into view. The code comes from
 * agents: every line is a text node, never HTML.
 */
export function CodeListing({ code, marked }: { code: string; marked: readonly number[] }) {
  const listing = useRef<HTMLPreElement>(null);
  const lines = code.replace(/\r\n?/g, '\n').split('\n');
  const width = String(lines.length).length;
  const marks = new Set(marked);
  useEffect(() => {
    listing.current?.querySelector('.marked')?.scrollIntoView({ block: 'nearest' });
  }, [code, marked.join(',')]);
  return (
    <pre class="listing" data-testid="code-listing" ref={listing}>
      {lines.map((text, index) => {
        const line = index + 1;
        const mark = marks.has(line);
        return (
          <span
            key={line}
            class={mark ? 'line marked' : 'line'}
            data-line={line}
            data-testid={mark ? 'marked-line' : undefined}
          >
            <span class="gutter" aria-hidden="true">
              {mark ? '▶' : ' '}
              {String(line).padStart(width)}
            </span>
            {mark ? <span class="visually-hidden">Line {line}, marked: </span> : null}
            {text}
          </span>
        );
      })}
    </pre>
  );
}
