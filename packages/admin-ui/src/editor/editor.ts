// The playground's editor, loaded on demand: CodeMirror 6 with TypeScript highlighting, and
// completions and diagnostics from a TypeScript language service in a worker that knows the
// declarations of the enabled tools.
import { autocompletion, type CompletionContext, type CompletionResult } from '@codemirror/autocomplete';
import { javascript } from '@codemirror/lang-javascript';
import { type Diagnostic, linter } from '@codemirror/lint';
import { basicSetup, EditorView } from 'codemirror';

/** An editor in the page. */
export interface CodeEditor {
  /** Replace the text. */
  setCode(code: string): void;
  destroy(): void;
}

type Pending = { resolve(value: unknown): void; reject(error: Error): void };

/** The language service worker and its request/answer pairing. */
function startWorker() {
  const worker = new Worker(new URL('./ts-worker.js', import.meta.url), { type: 'module' });
  const pending = new Map<number, Pending>();
  let next = 0;
  worker.onmessage = (event: MessageEvent<{ id: number; result?: unknown; error?: string }>) => {
    const waiting = pending.get(event.data.id);
    pending.delete(event.data.id);
    if (!waiting) return;
    if (event.data.error !== undefined) waiting.reject(new Error(event.data.error));
    else waiting.resolve(event.data.result);
  };
  const ask = <T>(request: Record<string, unknown>): Promise<T> =>
    new Promise((resolve, reject) => {
      const id = ++next;
      pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
      worker.postMessage({ ...request, id });
    });
  return { ask, terminate: () => worker.terminate() };
}

/**
 * Mount the editor in `parent` with `code`; `onChange` gets every edit. `types` are the
 * declarations the code is checked against.
 *
 * @example
 * ```ts
 * const editor = createEditor(element, 'cyrnel.output({ ok: true });', setCode, await client.environment.types());
 * ```
 */
export function createEditor(
  parent: HTMLElement,
  code: string,
  onChange: (code: string) => void,
  types: string,
): CodeEditor {
  const service = startWorker();
  const ready = service.ask({ type: 'types', types });
  const complete = async (context: CompletionContext): Promise<CompletionResult | null> => {
    const word = context.matchBefore(/[\w$]*/);
    if (
      !context.explicit &&
      word &&
      word.from === word.to &&
      context.state.sliceDoc(word.from - 1, word.from) !== '.'
    )
      return null;
    await ready;
    const answer = await service.ask<{
      entries: { label: string; type: string; sortText: string }[];
      from?: number;
    }>({
      type: 'complete',
      code: context.state.doc.toString(),
      pos: context.pos,
    });
    if (answer.entries.length === 0) return null;
    return {
      from: answer.from ?? word?.from ?? context.pos,
      options: answer.entries.map((entry) => ({
        label: entry.label,
        type:
          entry.type === 'method' || entry.type === 'function'
            ? 'function'
            : entry.type === 'property'
              ? 'property'
              : 'variable',
        boost: -Number.parseInt(entry.sortText, 10) || 0,
      })),
      validFor: /^[\w$]*$/,
    };
  };
  const diagnose = async (view: EditorView): Promise<Diagnostic[]> => {
    await ready;
    const found = await service.ask<Diagnostic[]>({ type: 'diagnose', code: view.state.doc.toString() });
    const length = view.state.doc.length;
    return found.map((diagnostic) => ({
      ...diagnostic,
      from: Math.min(diagnostic.from, length),
      to: Math.min(Math.max(diagnostic.to, diagnostic.from), length),
    }));
  };
  const view = new EditorView({
    parent,
    doc: code,
    extensions: [
      basicSetup,
      javascript({ typescript: true }),
      autocompletion({ override: [complete], activateOnTyping: true }),
      linter(diagnose, { delay: 400 }),
      EditorView.updateListener.of((update) => {
        if (update.docChanged) onChange(update.state.doc.toString());
      }),
      EditorView.contentAttributes.of({ 'aria-label': 'Code (TypeScript)' }),
    ],
  });
  return {
    setCode(next) {
      view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: next } });
    },
    destroy() {
      view.destroy();
      service.terminate();
    },
  };
}
