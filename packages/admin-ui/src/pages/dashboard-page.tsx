import type { CyrnelClient } from '@cyrnel/client';
import { Fragment } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { formatMs } from '../components/efficiency-format';
import { ErrorLine } from '../components/error-line';
import { parseMetrics, ratePerSecond, type Sample, sumBy, total } from '../components/prometheus-text';

/** How often the dashboard scrapes `GET /metrics` again. */
export const DASHBOARD_MS = 5000;

/** One scrape: its samples and when it was read (milliseconds of `performance.now()`). */
interface Scrape {
  readonly samples: Sample[];
  readonly at: number;
}

/** The last two scrapes, every {@link DASHBOARD_MS} while the tab shows, and the last error. */
function useScrapes(client: CyrnelClient) {
  const [scrapes, setScrapes] = useState<{ now?: Scrape; before?: Scrape }>({});
  const [error, setError] = useState<unknown>(undefined);
  useEffect(() => {
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const step = async () => {
      if (!document.hidden) {
        try {
          const text = await client.metrics.text();
          if (stopped) return;
          const scrape = { samples: parseMetrics(text), at: performance.now() };
          setScrapes((last) => ({ now: scrape, ...(last.now ? { before: last.now } : {}) }));
          setError(undefined);
        } catch (caught) {
          if (stopped) return;
          setError(caught);
        }
      }
      if (!stopped) timer = setTimeout(step, DASHBOARD_MS);
    };
    void step();
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, []);
  return { ...scrapes, error };
}

/** A count, and its rate per second since the scrape before when there was one. */
function Count({ value, before, seconds }: { value: number; before: number | undefined; seconds: number }) {
  const rate = ratePerSecond(value, before, seconds);
  return (
    <>
      {value}
      {rate === undefined ? null : <span class="muted"> ({rate.toFixed(2)}/s)</span>}
    </>
  );
}

/** A table of counts grouped by labels, with their rates; "none yet" when there is no row. */
function CountTable({
  label,
  columns,
  rows,
  before,
  seconds,
  testId,
}: {
  label: string;
  columns: readonly string[];
  rows: { labels: Record<string, string>; value: number }[];
  before: Map<string, number>;
  seconds: number;
  testId: string;
}) {
  if (rows.length === 0) return <p class="empty">None yet.</p>;
  return (
    <div class="table-scroll">
      <table aria-label={label} data-testid={testId}>
        <thead>
          <tr>
            {columns.map((column) => (
              <th key={column}>{column}</th>
            ))}
            <th>Count</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => {
            const values = Object.values(row.labels);
            return (
              <tr key={values.join(' ')}>
                {values.map((value, index) => (
                  <td key={columns[index]}>{value}</td>
                ))}
                <td>
                  <Count value={row.value} before={before.get(JSON.stringify(values))} seconds={seconds} />
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}

/** The groups of `name` by `keys` in `samples`, and the same groups of the scrape before by id. */
function grouped(now: Scrape, before: Scrape | undefined, name: string, keys: readonly string[]) {
  const rows = sumBy(now.samples, name, keys);
  const earlier = new Map(
    before
      ? sumBy(before.samples, name, keys).map((row) => [JSON.stringify(Object.values(row.labels)), row.value])
      : [],
  );
  return { rows, before: earlier };
}

/**
 * `#/dashboard` (admin keys): this host's metrics (`GET /metrics`, parsed in the browser) every
 * 5 s: processes by state, the shared queue, approvals pending, the event loop's lag, runs by
 * exit state and reason, the 10 most called tools, upstream answers by class; counters with
 * their rate since the scrape before.
 */
export function DashboardPage({ client }: { client: CyrnelClient }) {
  const { now, before, error } = useScrapes(client);
  if (!now) return error ? <ErrorLine error={error} /> : <p class="muted">Loading…</p>;
  const seconds = before ? (now.at - before.at) / 1000 : 0;
  const states = sumBy(now.samples, 'cyrnel_processes', ['state']);
  const lag = total(now.samples, 'nodejs_eventloop_lag_seconds');
  const runs = grouped(now, before, 'cyrnel_process_runs_total', ['exit_state', 'reason']);
  const calls = grouped(now, before, 'cyrnel_tool_calls_total', ['service', 'tool']);
  const upstream = grouped(now, before, 'cyrnel_upstream_responses_total', ['class']);
  return (
    <>
      <h1>Dashboard</h1>
      <p class="muted">
        This host's metrics (<code>GET /metrics</code>), read again every {DASHBOARD_MS / 1000} s; rates are
        since the read before.
      </p>
      <ErrorLine error={error} />
      <h2>Now</h2>
      <dl class="facts" data-testid="dashboard-now">
        {states.map((row) => (
          <Fragment key={row.labels.state}>
            <dt>Processes {row.labels.state}</dt>
            <dd data-testid={`processes-${row.labels.state}`}>{row.value}</dd>
          </Fragment>
        ))}
        <dt>Queue depth (shared)</dt>
        <dd data-testid="queue-depth">{total(now.samples, 'cyrnel_queue_depth') ?? '—'}</dd>
        <dt>Approvals pending</dt>
        <dd data-testid="approvals-pending">{total(now.samples, 'cyrnel_approvals_pending') ?? '—'}</dd>
        <dt>Event loop lag</dt>
        <dd data-testid="event-loop-lag">{lag === undefined ? '—' : formatMs(lag * 1000)}</dd>
      </dl>
      <h2>Runs by exit state and reason</h2>
      <CountTable
        label="Runs by exit state and reason"
        columns={['Exit state', 'Reason']}
        testId="dashboard-runs"
        seconds={seconds}
        {...runs}
      />
      <h2>Most called tools</h2>
      <CountTable
        label="Most called tools"
        columns={['Service', 'Tool']}
        testId="dashboard-tools"
        seconds={seconds}
        rows={calls.rows.slice(0, 10)}
        before={calls.before}
      />
      <h2>Upstream answers by class</h2>
      <CountTable
        label="Upstream answers by class"
        columns={['Class']}
        testId="dashboard-upstream"
        seconds={seconds}
        {...upstream}
      />
    </>
  );
}
