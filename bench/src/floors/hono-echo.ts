import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { Hono } from 'hono';

/** A running minimal hono app with one JSON echo route: floor (a). */
export interface HonoEcho {
  readonly url: string;
  close(): Promise<void>;
}

/** Starts `POST /echo` (answers the JSON body it got) on @hono/node-server, 127.0.0.1. */
export async function startHonoEcho(): Promise<HonoEcho> {
  const app = new Hono();
  app.post('/echo', async (c) => c.json(await c.req.json(), 201));
  const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
    const s = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 }, () => resolve(s));
  });
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        if ('closeAllConnections' in server) server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
