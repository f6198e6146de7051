import type { RequestOptions } from './request-options';
import type { Transport } from './transport';

/** `/environment` endpoints: what an agent reads before writing code. */
export interface EnvironmentApi {
  /** `GET /environment/docs`: Markdown of the runtime rules. */
  docs(options?: RequestOptions): Promise<string>;
  /** `GET /environment/types`: `declare const cyrnel: {...}` for every enabled tool. */
  types(options?: RequestOptions): Promise<string>;
}

/** Build the `environment` group over a transport. */
export function createEnvironmentApi(transport: Transport): EnvironmentApi {
  return {
    docs: (options) => transport.text({ method: 'GET', path: '/environment/docs', options }),
    types: (options) => transport.text({ method: 'GET', path: '/environment/types', options }),
  };
}
