import { describe, expect, it } from 'vitest';
import { PEER_TRIVIAL, peerParallelProgram, peerSequentialProgram } from '../programs.ts';
import { startUpstream } from '../upstream.ts';
import { createCodeModePeer } from './code-mode-peer.ts';

describe('createCodeModePeer', () => {
  it('runs the trivial program and the tool-call chains against the upstream', async () => {
    const upstream = await startUpstream();
    const peer = await createCodeModePeer(`${upstream.url}/openapi.json`);
    try {
      expect(await peer.run(PEER_TRIVIAL)).toEqual({ ok: true });
      expect(await peer.run(peerSequentialProgram(peer.manual, 10))).toEqual({ ok: true, sum: 45 });
      expect(await peer.run(peerParallelProgram(peer.manual, 5))).toEqual({ ok: true, count: 5 });
      await expect(peer.run('throw new Error("boom")')).rejects.toThrow(/boom/);
    } finally {
      await peer.close();
      await upstream.close();
    }
  });
});
