import { trackTestManagers } from '@cyrnel/core/testing';
import { describe, expect, it } from 'vitest';
import { callerProcesses } from './caller-processes';

const setup = trackTestManagers();

describe('callerProcesses', () => {
  it('lets an admin act on every process and an agent only on its own', async () => {
    const { api } = await setup();
    const admin = callerProcesses(api, { keyId: 'root', principalId: null, role: 'admin' });
    const agent = callerProcesses(api, { keyId: 'alice', principalId: null, role: 'agent' });
    const bootstrap = callerProcesses(api, { keyId: null, principalId: null, role: 'admin' });
    const byAdmin = await admin.create({ code: 'x', autorun: false });
    const byAgent = await agent.create({ code: 'x', autorun: false });
    const byBootstrap = await bootstrap.create({ code: 'x', autorun: false });
    expect([byAdmin.keyId, byAgent.keyId, byBootstrap.keyId]).toEqual(['root', 'alice', null]);
    expect((await agent.list()).items.map((process) => process.id)).toEqual([byAgent.id]);
    expect((await admin.list()).items).toHaveLength(3);
    await expect(agent.get(byAdmin.id)).rejects.toMatchObject({ reason: 'process_not_found' });
  });

  it('refuses an agent without a stored key: nobody known owns nothing', () => {
    expect(() =>
      callerProcesses({} as never, { keyId: null, principalId: null, role: 'agent' }),
    ).toThrowError(
      expect.objectContaining({
        reason: 'forbidden',
        message: 'the agent role needs a stored key to own processes',
      }),
    );
  });
});
