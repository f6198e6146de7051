import type { ServiceStats } from '@cyrnel/sdk/api';

/** The sums behind `ServiceStats`, as a storage answers them (the id and the ratio are added above it). */
export type ServiceUsage = Omit<ServiceStats, 'serviceId' | 'ratio'>;

/** A {@link ServiceUsage} of no runs. */
export const NO_SERVICE_USAGE: ServiceUsage = Object.freeze({
  runs: 0,
  toolCalls: 0,
  toolResultBytes: 0,
  returnedBytes: 0,
  wallMs: 0,
  cpuMs: null,
  firstRunAt: null,
  lastRunAt: null,
});

/**
 * The part of the process storage port behind `GET /services/:serviceId/stats`: sums over the
 * stored rows, read in one statement, so hosts sharing a database all answer the same without
 * counters of their own (the rows are written by each run's own end).
 */
export interface ServiceStatsStorage {
  /**
   * Over the ended runs that recorded metrics (`ProcessRecord.metrics` not null) and called
   * `serviceId` at least once: how many, the calls of that service in them and those calls'
   * `resultBytes`, the runs' `returnedBytes`, `wallMs` and `cpuMs` summed (`cpuMs` null when none
   * reported it), the earliest `startedAt` and the latest `completedAt`.
   */
  serviceStats(serviceId: string): Promise<ServiceUsage>;
}
