import type { ComponentChildren } from 'preact';

/** Inline Markdown: `code`, **bold**, *emphasis*; everything else text (never HTML). */
function inline(text: string): ComponentChildren[] {
  const parts: ComponentChildren[] = [];
  const pattern = /`([^`]+)`|\*\*([^*]+)\*\*|\*([^*]+)\*/g;
  let last = 0;
  for (const match of text.matchAll(pattern)) {
    const index = match.index ?? 0;
    if (index > last) parts.push(text.slice(last, index));
    if (match[1] !== undefined) parts.push(<code>{match[1]}</code>);
    else if (match[2] !== undefined) parts.push(<strong>{match[2]}</strong>);
    else parts.push(<em>{match[3]}</em>);
    last = index + match[0].length;
  }
  if (last < text.length) parts.push(text.slice(last));
  return parts;
}

/**
 * Markdown as elements, for tool docs (whose text comes from service definitions, so it is never
 * parsed as HTML): headings, fenced code, bullet lists, paragraphs and inline code, bold and
 * emphasis. Anything else shows as text.
 */
export function Markdown({ text }: { text: string }) {
  const blocks: ComponentChildren[] = [];
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  for (let index = 0; index < lines.length; ) {
    const line = lines[index] as string;
    const fence = /^\s*```/.exec(line);
    if (fence) {
      const code: string[] = [];
      index++;
      while (index < lines.length && !/^\s*```/.test(lines[index] as string))
        code.push(lines[index++] as string);
      index++;
      blocks.push(<pre>{code.join('\n')}</pre>);
      continue;
    }
    const heading = /^(#{1,6})\s+(.*)$/.exec(line);
    if (heading) {
      const level = Math.min(6, (heading[1] as string).length + 1);
      const Tag = `h${level}` as 'h2';
      blocks.push(<Tag>{inline(heading[2] as string)}</Tag>);
      index++;
      continue;
    }
    if (/^\s*[-*]\s+/.test(line)) {
      const items: string[] = [];
      while (index < lines.length && /^\s*[-*]\s+/.test(lines[index] as string))
        items.push((lines[index++] as string).replace(/^\s*[-*]\s+/, ''));
      blocks.push(
        <ul>
          {items.map((item) => (
            <li>{inline(item)}</li>
          ))}
        </ul>,
      );
      continue;
    }
    if (line.trim() === '') {
      index++;
      continue;
    }
    const paragraph: string[] = [];
    while (
      index < lines.length &&
      (lines[index] as string).trim() !== '' &&
      !/^(#{1,6}\s|\s*```|\s*[-*]\s)/.test(lines[index] as string)
    )
      paragraph.push(lines[index++] as string);
    blocks.push(<p>{inline(paragraph.join(' '))}</p>);
  }
  return <div class="markdown">{blocks}</div>;
}
