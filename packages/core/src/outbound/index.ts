export {
  type AddressGuard,
  type AddressGuardOptions,
  BLOCKED_CIDRS,
  createAddressGuard,
} from './address-guard';
export { type Cidr, parseCidr } from './cidr';
export {
  createOutboundPolicy,
  describeOutboundPolicy,
  type OutboundPolicyData,
  type OutboundPolicyOptions,
  type OwnEndpoint,
} from './outbound-policy';
