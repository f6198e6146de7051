/** A state badge: `yes` when `on`, else `no`. */
export function Pill({ on, yes, no }: { on: boolean; yes: string; no: string }) {
  return <span class={`pill ${on ? 'on' : 'off'}`}>{on ? yes : no}</span>;
}
