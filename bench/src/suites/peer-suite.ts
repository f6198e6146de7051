import { measure } from '../harness/measure.ts';
import { createCodeModePeer } from '../peer/code-mode-peer.ts';
import { PEER_TRIVIAL, peerParallelProgram, peerSequentialProgram } from '../programs.ts';
import { METRIC, type SuiteContext } from './suite-context.ts';

/** @utcp/code-mode in-process: the trivial program and the same tool-call chains. */
export async function runPeer(ctx: SuiteContext): Promise<void> {
  await runPeerParts(ctx, true);
}

/** Only the peer's trivial program (`--only trivial`). */
export async function runPeerTrivial(ctx: SuiteContext): Promise<void> {
  await runPeerParts(ctx, false);
}

async function runPeerParts(ctx: SuiteContext, chains: boolean): Promise<void> {
  const { config, report, upstream } = ctx;
  ctx.log('peer: @utcp/code-mode');
  const peer = await createCodeModePeer(`${upstream.url}/openapi.json`);
  const closePeer = ctx.resources.defer(() => peer.close());
  try {
    const trivial = await measure(() => peer.run(PEER_TRIVIAL), {
      warmup: Math.min(config.warmup, 20),
      reps: config.peerReps,
    });
    report.add({
      section: 'latency',
      metric: METRIC.peerTrivial,
      unit: 'ms',
      stats: trivial,
      note: 'in-process, no HTTP, no database: a new isolate per call, as the peer does',
    });
    if (!chains) return;
    const seqCode = peerSequentialProgram(peer.manual, 1_000);
    const check = (await peer.run(seqCode)) as { sum?: number };
    if (check.sum !== 499_500) throw new Error(`the peer's chain returned ${JSON.stringify(check)}`);
    const seq = await measure(() => peer.run(seqCode), { warmup: 0, reps: config.chainReps });
    report.add({
      section: 'tool calls',
      metric: METRIC.peerSeq,
      unit: 'ms',
      stats: seq,
      note: 'the peer registers the upstream through its OpenAPI description (@utcp/http); calls go out with axios',
    });
    const parCode = peerParallelProgram(peer.manual, 100);
    const par = await measure(() => peer.run(parCode), { warmup: 2, reps: config.batchReps });
    report.add({
      section: 'tool calls',
      metric: METRIC.peerPar,
      unit: 'ms',
      stats: par,
      note: "the peer's tool functions block the sandbox until each call returns (applySyncPromise), so its 100 calls run one after another",
    });
  } finally {
    await closePeer();
  }
}
