import type { ToolPolicy } from '@cyrnel/sdk';

const CLASS: Readonly<Record<ToolPolicy, string>> = { allow: 'on', ask: 'ask', block: 'bad' };

/** A tool policy as a badge: `allow` green, `ask` amber, `block` red. */
export function PolicyPill({ policy }: { policy: ToolPolicy }) {
  return <span class={`pill ${CLASS[policy]}`}>{policy}</span>;
}
