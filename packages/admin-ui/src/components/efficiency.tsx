import type { CyrnelClient } from '@cyrnel/client';
import { efficiencyRatio, formatBytes, type ProcessMetrics, type ServiceStats } from '@cyrnel/sdk/api';
import { useEffect, useState } from 'preact/hooks';
import { efficiencySentence, formatMs, ratioVerdict } from './efficiency-format';
import { ErrorLine } from './error-line';

/** A ratio and its verdict: `6.71 — neutral`; `—` without one. */
function Ratio({ ratio }: { ratio: number | null }) {
  const verdict = ratioVerdict(ratio);
  if (ratio === null) return <span data-testid="efficiency-ratio">— ({verdict})</span>;
  const pill = verdict === 'pays off' ? 'pill on' : verdict === 'neutral' ? 'pill' : 'pill ask';
  return (
    <span data-testid="efficiency-ratio">
      {ratio}× <span class={pill}>{verdict}</span>
    </span>
  );
}

/**
 * What a run read from tools and returned to the model (the SDK's sentence), the ratio with its
 * verdict, its wall and CPU time; dashes while it runs (the server records the metrics at its end)
 * or when the server recorded none.
 */
export function RunEfficiency({ metrics }: { metrics: ProcessMetrics | null | undefined }) {
  const known = metrics ?? null;
  return (
    <section aria-label="Efficiency">
      <h2>Efficiency</h2>
      <p data-testid="efficiency">
        {known ? `${efficiencySentence(known)}.` : '— (recorded when the run ends)'}
      </p>
      <dl class="facts">
        <dt>Bytes read per byte returned</dt>
        <dd>{known ? <Ratio ratio={efficiencyRatio(known)} /> : '—'}</dd>
        <dt>Wall time</dt>
        <dd data-testid="efficiency-wall">{formatMs(known?.wallMs)}</dd>
        <dt>CPU time</dt>
        <dd data-testid="efficiency-cpu">{formatMs(known?.cpuMs)}</dd>
      </dl>
    </section>
  );
}

/**
 * A service's efficiency meter (`GET /services/:id/stats`): runs, calls, bytes read and returned,
 * the ratio, wall and CPU time summed, and the window of runs they cover. Only for an admin key:
 * the caller renders it for one, and it asks nothing otherwise.
 */
export function ServiceStatsCard({ client, serviceId }: { client: CyrnelClient; serviceId: string }) {
  const [stats, setStats] = useState<ServiceStats | undefined>();
  const [error, setError] = useState<unknown>(undefined);
  useEffect(() => {
    let stopped = false;
    setStats(undefined);
    client.services.stats(serviceId).then(
      (loaded) => !stopped && setStats(loaded),
      (caught) => !stopped && setError(caught),
    );
    return () => {
      stopped = true;
    };
  }, [serviceId]);
  return (
    <section class="panel" aria-label="Efficiency of its runs" data-testid="service-stats">
      <h3>Efficiency of its runs</h3>
      <ErrorLine error={error} />
      {stats === undefined ? (
        error ? null : (
          <p class="muted">Loading…</p>
        )
      ) : stats.runs === 0 ? (
        <p class="empty">No ended run called this service yet (or retention removed them).</p>
      ) : (
        <dl class="facts">
          <dt>Runs</dt>
          <dd data-testid="stats-runs">{stats.runs}</dd>
          <dt>Calls of its tools</dt>
          <dd data-testid="stats-calls">{stats.toolCalls}</dd>
          <dt>Bytes read from its tools</dt>
          <dd data-testid="stats-read">{formatBytes(stats.toolResultBytes)}</dd>
          <dt>Bytes those runs returned</dt>
          <dd data-testid="stats-returned">{formatBytes(stats.returnedBytes)}</dd>
          <dt>Bytes read per byte returned</dt>
          <dd>
            <Ratio ratio={stats.ratio} />
          </dd>
          <dt>Wall time</dt>
          <dd>{formatMs(stats.wallMs)}</dd>
          <dt>CPU time</dt>
          <dd>{formatMs(stats.cpuMs)}</dd>
          <dt>Runs from</dt>
          <dd data-testid="stats-window">
            {stats.firstRunAt ?? '—'} to {stats.lastRunAt ?? '—'}
          </dd>
        </dl>
      )}
    </section>
  );
}
