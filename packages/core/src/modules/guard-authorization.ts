import type { AdapterAuthorization, ServiceState } from '@cyrnel/sdk';
import { cyrnelError, isCyrnelError } from '../errors';
import { errorMessage } from '../scoped-logger';

/**
 * An adapter's sign-in under the host's rules: refused after teardown, and any failure but the
 * adapter's own `CyrnelError` a 502 `upstream_unauthorized` naming the adapter (the authorization
 * server or the MCP server refused, or could not be reached).
 */
export function guardAuthorization(
  id: string,
  inner: AdapterAuthorization,
  open: () => void,
): AdapterAuthorization {
  const failed = (state: ServiceState) => (message: string) =>
    cyrnelError(
      'upstream_unauthorized',
      `adapter ${id} could not sign connection ${state.id} in: ${message}`,
    );
  return {
    signsIn: (state) => {
      try {
        return inner.signsIn(state);
      } catch {
        return false;
      }
    },
    async begin(state, request) {
      open();
      try {
        return await inner.begin(state, request);
      } catch (error) {
        throw isCyrnelError(error) ? error : failed(state)(errorMessage(error));
      }
    },
    async finish(state, query) {
      open();
      try {
        await inner.finish(state, query);
      } catch (error) {
        throw isCyrnelError(error) ? error : failed(state)(errorMessage(error));
      }
    },
  };
}
