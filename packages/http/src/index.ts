export type { AppEnv, HttpLogger } from './app-env';
export { type CreateAppOptions, createApp } from './create-app';
export {
  type AddressGuard,
  type AddressGuardOptions,
  BLOCKED_CIDRS,
  createAddressGuard,
} from './download/address-guard';
export { type Cidr, cidrContains, parseAddress, parseCidr } from './download/cidr';
export { type DownloadDefinitionOptions, downloadDefinition } from './download/download-definition';
export { REQUEST_ID_HEADER } from './middleware/request-id';
