/** Body schema of every `POST .../enabled` route: `{enabled: boolean}`, strictly. */
export const ENABLED_BODY = { enabled: { type: 'boolean', required: true } } as const;
