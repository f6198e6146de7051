import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach } from 'vitest';
import { createEgressGateway, type EgressAudit, type EgressGateway } from '../gateway/egress-gateway';
import type { AuditEvent } from '../gateway/gateway-protocol';

/** A gateway made by {@link trackAuditedGateways} and the audit hook the process manager gave it. */
export interface AuditedGateway {
  readonly egress: EgressGateway;
  /** Its journal directory (with `journal: true`). */
  readonly journalDir?: string;
  /** Call the hook as a worker's message would (throws when the manager gave none). */
  report(eid: number, event: AuditEvent): Promise<unknown>;
}

/**
 * For core's own tests (not exported): real egress gateways whose workers start only with a grant
 * (which these tests never make), each with the audit hook a process manager gives it, closed
 * after each test. `journal`: the gateway journals, so an allowed start may be kept for a run's
 * later calls.
 *
 * @example
 * const audited = trackAuditedGateways();
 * const { egress, report } = audited({ journal: true });
 * const { api } = await setup({ egress });
 */
export function trackAuditedGateways(): (options?: { journal?: boolean }) => AuditedGateway {
  const gateways: EgressGateway[] = [];
  const dirs: string[] = [];
  afterEach(async () => {
    await Promise.all(gateways.splice(0).map((gateway) => gateway.close()));
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  return (options = {}) => {
    const journalDir = options.journal ? mkdtempSync(join(tmpdir(), 'cyrnel-audited-gateway-')) : undefined;
    if (journalDir) dirs.push(journalDir);
    const egress = createEgressGateway({
      host: { prepare: async () => undefined, onChange: () => () => {} },
      workers: 1,
      ...(journalDir ? { journalDir } : {}),
    });
    gateways.push(egress);
    let hook: EgressAudit | undefined;
    const audit = egress.audit.bind(egress);
    egress.audit = (next) => {
      hook = next;
      audit(next);
    };
    return {
      egress,
      ...(journalDir ? { journalDir } : {}),
      report: async (eid, event) => {
        if (!hook) throw new Error('the process manager gave the gateway no audit hook');
        return hook(eid, event);
      },
    };
  };
}
