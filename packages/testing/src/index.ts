export {
  type AdapterContractFixture,
  type AdapterContractOptions,
  type AdapterContractSlowCall,
  runAdapterContract,
  stateOf,
} from './adapter-contract';
export {
  type AuthorizationServer,
  type AuthorizationServerOptions,
  followAuthorization,
  type RecordedRequest,
  startAuthorizationServer,
  type TestAccount,
  type TestClient,
  type TestJwtClaims,
} from './authorization-server';
export { type ConformanceScenario, startConformanceScenario } from './conformance-scenario';
export {
  createRecordingBindings,
  type EnvironmentContractOptions,
  type EnvironmentPrograms,
  type RecordedExecution,
  runEnvironmentContract,
} from './environment-contract';
export { type SeenToken, startTokenUpstream, type TokenUpstream } from './token-upstream';
