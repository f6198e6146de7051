export {
  type AddressGuard,
  type AddressGuardOptions,
  BLOCKED_CIDRS,
  createAddressGuard,
} from './address-guard';
export { type Cidr, cidrContains, type ParsedAddress, parseAddress, parseCidr } from './cidr';
export { embeddedIPv4 } from './embedded-ipv4';
export { createOutboundPolicy, type OutboundPolicyOptions, type OwnEndpoint } from './outbound-policy';
