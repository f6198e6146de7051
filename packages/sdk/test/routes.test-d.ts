import { describe, expectTypeOf, it } from 'vitest';
import {
  type AnswerOf,
  type API_ROUTES,
  type BodyFields,
  type BodyOf,
  type BodySchema,
  CHECKED_ID,
  type ConfigResponse,
  type CreateKeyRequest,
  type CreateProcessRequest,
  type CreateProcessResponse,
  defineRoute,
  jsonAnswer,
  type ListResponse,
  objectBody,
  type ParamsOf,
  type PathParamNames,
  type PlanResponse,
  type QueryOf,
  type ServiceListQuery,
  type ServiceRecord,
  type ServiceRefreshResult,
  type TypeCheckResponse,
  type TypesQuery,
} from '../src/api';

type Table = typeof API_ROUTES;

describe('the route table', () => {
  it('derives params, query, body and answer types from each entry', () => {
    expectTypeOf<AnswerOf<Table['services']['refresh']>>().toEqualTypeOf<ServiceRefreshResult>();
    expectTypeOf<ParamsOf<Table['services']['refresh']>>().toEqualTypeOf<{ serviceId: string }>();
    expectTypeOf<ParamsOf<Table['processes']['get']>>().toEqualTypeOf<{ id: number }>();
    expectTypeOf<ParamsOf<Table['tools']['get']>>().toEqualTypeOf<{ serviceId: string; toolId: string }>();
    expectTypeOf<ParamsOf<Table['modules']['patchConfig']>>().toEqualTypeOf<{ moduleId: string }>();
    expectTypeOf<AnswerOf<Table['modules']['patchConfig']>>().toEqualTypeOf<ConfigResponse>();
    expectTypeOf<QueryOf<Table['services']['list']>>().toEqualTypeOf<ServiceListQuery>();
    expectTypeOf<QueryOf<Table['services']['get']>>().toEqualTypeOf<undefined>();
    expectTypeOf<QueryOf<Table['environment']['types']>>().toEqualTypeOf<TypesQuery>();
    expectTypeOf<AnswerOf<Table['services']['list']>>().toEqualTypeOf<ListResponse<ServiceRecord>>();
    expectTypeOf<BodyOf<Table['processes']['create']>>().toEqualTypeOf<CreateProcessRequest>();
    expectTypeOf<AnswerOf<Table['processes']['create']>>().toEqualTypeOf<
      CreateProcessResponse | PlanResponse | TypeCheckResponse
    >();
    expectTypeOf<BodyOf<Table['services']['get']>>().toEqualTypeOf<undefined>();
    expectTypeOf<AnswerOf<Table['services']['delete']>>().toEqualTypeOf<void>();
    expectTypeOf<AnswerOf<Table['tools']['docs']>>().toEqualTypeOf<string>();
  });

  it('checks a body schema against the TypeScript type of its body, both ways', () => {
    objectBody<{ name: string; force?: boolean }>({
      name: { type: 'string', required: true },
      force: { type: 'boolean' },
    });
    // @ts-expect-error a property of the type has no field
    objectBody<{ name: string; force?: boolean }>({ name: { type: 'string', required: true } });
    // @ts-expect-error a field the type does not have
    objectBody<{ name: string }>({ name: { type: 'string', required: true }, force: { type: 'boolean' } });
    // @ts-expect-error a required property whose field is optional
    objectBody<{ name: string }>({ name: { type: 'string' } });
    // @ts-expect-error a string property checked as a boolean
    objectBody<{ name?: string }>({ name: { type: 'boolean' } });
    // @ts-expect-error a nullable property whose field refuses null
    objectBody<{ timeoutMs?: number | null }>({ timeoutMs: { type: 'positiveInteger' } });
    expectTypeOf<BodyFields<CreateKeyRequest>>().toMatchTypeOf<BodySchema>();
  });

  it('requires params naming exactly the parameters of the path', () => {
    expectTypeOf<PathParamNames<'/tools/:serviceId/:toolId/docs'>>().toEqualTypeOf<'serviceId' | 'toolId'>();
    const base = {
      method: 'GET',
      role: 'admin',
      summary: 's',
      answer: jsonAnswer<string>({}),
      reasons: [],
    } as const;
    defineRoute({ ...base, path: '/a/:x', params: { x: CHECKED_ID } });
    // @ts-expect-error a parameter of the path is missing
    defineRoute({ ...base, path: '/a/:x/:y', params: { x: CHECKED_ID } });
    // @ts-expect-error a parameter the path does not have
    defineRoute({ ...base, path: '/a', params: { x: CHECKED_ID } });
  });
});
