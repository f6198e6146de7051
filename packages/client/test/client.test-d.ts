import type {
  AnswerOf,
  API_ROUTES,
  ApprovalDetail,
  ApprovalRecord,
  ConfigResponse,
  CreateProcessResponse,
  HealthResponse,
  ListResponse,
  ModuleDetail,
  ModuleRecord,
  PlanResponse,
  ProcessCallsResponse,
  ProcessEvent,
  ProcessOutput,
  ProcessRecord,
  ProcessResult,
  ProcessSummary,
  QueryOf,
  ReloadModulesResponse,
  Route,
  SchemaResponse,
  SecretsPresenceResponse,
  SecretsUpdatedResponse,
  ServiceDetail,
  ServicePolicy,
  ServiceRecord,
  ToolDetail,
  ToolListQuery,
  ToolRecord,
  TypeCheckResponse,
} from '@cyrnel/sdk/api';
import { describe, expectTypeOf, it } from 'vitest';
import { type CyrnelClient, type CyrnelHttpError, createClient } from '../src/index';

type Table = typeof API_ROUTES;
type Resource = Exclude<keyof Table, 'meta'>;
type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
/** The answer of a table entry. */
type AnswerAt<E> = E extends Route ? AnswerOf<E> : never;
/** What a client method resolves to (its last overload's), or the route's name when it is no Promise. */
type Resolves<F, Name extends string> = F extends (...args: never[]) => Promise<infer A> ? A : Name;

const client = createClient({ baseUrl: 'http://127.0.0.1:9371' });

describe('createClient types', () => {
  it('offers a method for every route of the table, named as the table names it', () => {
    type Missing = {
      [G in Resource]: `${G}.${Exclude<keyof Table[G], keyof CyrnelClient[G]> & string}`;
    }[Resource];
    expectTypeOf<Missing>().toEqualTypeOf<never>();
    expectTypeOf<Exclude<keyof Table['meta'], keyof CyrnelClient>>().toEqualTypeOf<never>();
  });

  it('resolves every method to the answer its route declares', () => {
    // `events` is an iterator of the stream (below), not one answer.
    type Mismatches = {
      [G in Resource]: {
        [N in keyof Table[G] & keyof CyrnelClient[G]]: N extends 'events'
          ? never
          : Equal<Resolves<CyrnelClient[G][N], `${G}.${N & string}`>, AnswerAt<Table[G][N]>> extends true
            ? never
            : `${G}.${N & string}`;
      }[keyof Table[G] & keyof CyrnelClient[G]];
    }[Resource];
    expectTypeOf<Mismatches>().toEqualTypeOf<never>();
    expectTypeOf(client.health()).resolves.toEqualTypeOf<AnswerOf<Table['meta']['health']>>();
    expectTypeOf(client.openapi()).resolves.toEqualTypeOf<AnswerOf<Table['meta']['openapi']>>();
    expectTypeOf(client.me()).resolves.toEqualTypeOf<AnswerOf<Table['meta']['me']>>();
    expectTypeOf(client.tools.list).parameter(0).toEqualTypeOf<QueryOf<Table['tools']['list']> | undefined>();
    expectTypeOf<QueryOf<Table['tools']['list']>>().toEqualTypeOf<ToolListQuery>();
  });

  it('returns the exact wire type of every endpoint', () => {
    expectTypeOf(client.health()).resolves.toEqualTypeOf<HealthResponse>();

    expectTypeOf(client.modules.list()).resolves.toEqualTypeOf<ListResponse<ModuleRecord>>();
    expectTypeOf(client.modules.get('openapi')).resolves.toEqualTypeOf<ModuleDetail>();
    expectTypeOf(client.modules.setEnabled('openapi', true)).resolves.toEqualTypeOf<ModuleDetail>();
    expectTypeOf(client.modules.reload()).resolves.toEqualTypeOf<ReloadModulesResponse>();
    expectTypeOf(client.modules.getConfig('m')).resolves.toEqualTypeOf<ConfigResponse>();
    expectTypeOf(client.modules.patchConfig('m', [])).resolves.toEqualTypeOf<ConfigResponse>();
    expectTypeOf(client.modules.getSecrets('m')).resolves.toEqualTypeOf<SecretsPresenceResponse>();
    expectTypeOf(client.modules.patchSecrets('m', [])).resolves.toEqualTypeOf<SecretsUpdatedResponse>();
    expectTypeOf(client.modules.configSchema('m')).resolves.toEqualTypeOf<SchemaResponse>();
    expectTypeOf(client.modules.secretsSchema('m')).resolves.toEqualTypeOf<SchemaResponse>();

    expectTypeOf(client.services.list()).resolves.toEqualTypeOf<ListResponse<ServiceRecord>>();
    expectTypeOf(client.services.get('s')).resolves.toEqualTypeOf<ServiceDetail>();
    expectTypeOf(
      client.services.install({ id: 's', adapter: 'openapi', url: 'http://x' }),
    ).resolves.toEqualTypeOf<ServiceDetail>();
    expectTypeOf(client.services.update('s', { definition: '{}' })).resolves.toEqualTypeOf<ServiceDetail>();
    expectTypeOf(client.services.delete('s')).resolves.toEqualTypeOf<void>();
    expectTypeOf(client.services.setEnabled('s', false)).resolves.toEqualTypeOf<ServiceDetail>();
    expectTypeOf(client.services.getConfig('s')).resolves.toEqualTypeOf<ConfigResponse>();
    expectTypeOf(
      client.services.patchConfig('s', [{ op: 'add', path: '/a', value: 1 }]),
    ).resolves.toEqualTypeOf<ConfigResponse>();
    expectTypeOf(client.services.getSecrets('s')).resolves.toEqualTypeOf<SecretsPresenceResponse>();
    expectTypeOf(
      client.services.patchSecrets('s', [{ op: 'remove', path: '/a' }]),
    ).resolves.toEqualTypeOf<SecretsUpdatedResponse>();
    expectTypeOf(client.services.configSchema('s')).resolves.toEqualTypeOf<SchemaResponse>();
    expectTypeOf(client.services.secretsSchema('s')).resolves.toEqualTypeOf<SchemaResponse>();
    expectTypeOf(client.services.getPolicy('s')).resolves.toEqualTypeOf<ServicePolicy>();
    expectTypeOf(client.services.setPolicy('s', { default: 'ask' })).resolves.toEqualTypeOf<ServicePolicy>();

    expectTypeOf(client.approvals.list({ state: 'pending' })).resolves.toEqualTypeOf<
      ListResponse<ApprovalRecord>
    >();
    expectTypeOf(client.approvals.get('a')).resolves.toEqualTypeOf<ApprovalDetail>();
    expectTypeOf(
      client.approvals.decide('a', { decision: 'approve' }),
    ).resolves.toEqualTypeOf<ApprovalDetail>();
    expectTypeOf(
      client.approvals.decidePlan('p', { decision: 'deny' }),
    ).resolves.toEqualTypeOf<ApprovalDetail>();

    expectTypeOf(client.tools.list()).resolves.toEqualTypeOf<ListResponse<ToolRecord>>();
    expectTypeOf(client.tools.get('s', 't')).resolves.toEqualTypeOf<ToolDetail>();
    expectTypeOf(client.tools.docs('s', 't')).resolves.toEqualTypeOf<string>();
    expectTypeOf(client.tools.setEnabled('s', 't', true)).resolves.toEqualTypeOf<ToolDetail>();

    expectTypeOf(client.environment.docs()).resolves.toEqualTypeOf<string>();
    expectTypeOf(client.environment.types()).resolves.toEqualTypeOf<string>();

    expectTypeOf(client.processes.create({ code: '' })).resolves.toEqualTypeOf<ProcessRecord>();
    expectTypeOf(client.processes.create({ code: '', wait: true })).resolves.toEqualTypeOf<ProcessResult>();
    expectTypeOf(client.processes.create({ code: '', plan: true })).resolves.toEqualTypeOf<PlanResponse>();
    const wait = Math.random() > 0.5;
    expectTypeOf(client.processes.create({ code: '', wait })).resolves.toEqualTypeOf<
      CreateProcessResponse | PlanResponse | TypeCheckResponse
    >();
    expectTypeOf(
      client.processes.create({ code: '', check: true }),
    ).resolves.toEqualTypeOf<TypeCheckResponse>();
    expectTypeOf(client.processes.check('')).resolves.toEqualTypeOf<TypeCheckResponse>();
    expectTypeOf(client.processes.run('')).resolves.toEqualTypeOf<ProcessResult>();
    expectTypeOf(client.processes.plan('')).resolves.toEqualTypeOf<PlanResponse>();
    expectTypeOf(client.processes.list()).resolves.toEqualTypeOf<ListResponse<ProcessSummary>>();
    expectTypeOf(client.processes.get(1)).resolves.toEqualTypeOf<ProcessRecord>();
    expectTypeOf(client.processes.code(1)).resolves.toEqualTypeOf<string>();
    expectTypeOf(client.processes.stdout(1)).resolves.toEqualTypeOf<string>();
    expectTypeOf(client.processes.stderr(1)).resolves.toEqualTypeOf<string>();
    expectTypeOf(client.processes.output(1)).resolves.toEqualTypeOf<ProcessOutput>();
    expectTypeOf(client.processes.calls(1)).resolves.toEqualTypeOf<ProcessCallsResponse>();
    expectTypeOf(client.processes.start(1, { force: true })).resolves.toEqualTypeOf<ProcessRecord>();
    expectTypeOf(client.processes.kill(1)).resolves.toEqualTypeOf<ProcessRecord>();
    expectTypeOf(client.processes.delete(1)).resolves.toEqualTypeOf<void>();
  });

  it('iterates lists and events with their item types', () => {
    expectTypeOf(client.modules.iterate()).toEqualTypeOf<AsyncGenerator<ModuleRecord, void, undefined>>();
    expectTypeOf(client.services.iterate({ enabled: true })).toEqualTypeOf<
      AsyncGenerator<ServiceRecord, void, undefined>
    >();
    expectTypeOf(client.tools.iterate({ serviceId: 's' })).toEqualTypeOf<
      AsyncGenerator<ToolRecord, void, undefined>
    >();
    expectTypeOf(client.processes.iterate()).toEqualTypeOf<AsyncGenerator<ProcessSummary, void, undefined>>();
    expectTypeOf(client.approvals.iterate({ state: 'pending' })).toEqualTypeOf<
      AsyncGenerator<ApprovalRecord, void, undefined>
    >();
    expectTypeOf(client.processes.events(1)).toEqualTypeOf<AsyncGenerator<ProcessEvent, void, undefined>>();
  });

  it('refuses a run that asks for a plan, and a decision other than approve or deny', () => {
    // @ts-expect-error run() waits for a result; plan() answers a plan
    client.processes.run('', { plan: true });
    // @ts-expect-error the decision is approve or deny
    client.approvals.decide('a', { decision: 'maybe' });
  });

  it('refuses an install with both or neither of url and definition', () => {
    // @ts-expect-error both sources
    client.services.install({ id: 's', adapter: 'openapi', url: 'http://x', definition: '{}' });
    // @ts-expect-error no source
    client.services.install({ id: 's', adapter: 'openapi' });
  });

  it('narrows event payloads by type and exposes error fields', () => {
    const event = {} as ProcessEvent;
    if (event.type === 'stdout') expectTypeOf(event.data).toEqualTypeOf<{ text: string }>();
    expectTypeOf<CyrnelHttpError['status']>().toEqualTypeOf<number>();
    expectTypeOf<CyrnelHttpError['code']>().toEqualTypeOf<import('@cyrnel/sdk/api').ErrorCode | 'unknown'>();
    expectTypeOf<CyrnelHttpError['reason']>().toEqualTypeOf<
      import('@cyrnel/sdk/api').ErrorReason | 'unknown'
    >();
  });
});
