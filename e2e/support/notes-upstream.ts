import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { CyrnelClient } from '@cyrnel/client';

/** A small notes API: `GET /notes` (read-only, allowed by default) and `POST /notes` (asks by default). */
export interface NotesUpstream {
  /** Base URL on 127.0.0.1. */
  readonly url: string;
  /** Its OpenAPI document, `servers` pointing at it. */
  readonly definition: object;
  /** The requests it answered, as `METHOD /path`. */
  readonly requests: readonly string[];
  close(): Promise<void>;
}

/** Start the notes API on a free port of 127.0.0.1. */
export async function startNotesUpstream(): Promise<NotesUpstream> {
  const notes: { id: number; text: string }[] = [];
  const requests: string[] = [];
  const server = createServer(async (req, res) => {
    let body = '';
    for await (const chunk of req) body += String(chunk);
    requests.push(`${req.method} ${req.url}`);
    const send = (status: number, value: unknown) =>
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value));
    if (req.url !== '/notes') return send(404, { message: 'no such route' });
    if (req.method === 'GET') return send(200, notes);
    const note = { id: notes.length + 1, text: String(JSON.parse(body).text) };
    notes.push(note);
    return send(201, note);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const json = { 'application/json': { schema: { type: 'object' } } };
  const definition = {
    openapi: '3.0.3',
    info: { title: 'Notes', version: '1.0.0' },
    servers: [{ url }],
    paths: {
      '/notes': {
        get: { operationId: 'listNotes', responses: { '200': { description: 'The notes', content: json } } },
        post: {
          operationId: 'createNote',
          requestBody: {
            required: true,
            content: {
              'application/json': {
                schema: { type: 'object', required: ['text'], properties: { text: { type: 'string' } } },
              },
            },
          },
          responses: { '201': { description: 'The note', content: json } },
        },
      },
    },
  };
  return {
    url,
    definition,
    requests,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Install `notes` on a server as the enabled OpenAPI service `notes`. */
export async function installNotes(admin: CyrnelClient, notes: NotesUpstream): Promise<void> {
  await admin.services.install({
    id: 'notes',
    adapter: 'openapi',
    definition: notes.definition,
    enabled: true,
  });
}
