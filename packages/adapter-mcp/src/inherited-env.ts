/** Variables a started server gets from cyrnel's environment: what finding programs needs. */
export const INHERITED_ENV = ['PATH', 'HOME', 'USER', 'LOGNAME', 'SHELL', 'TERM', 'LANG', 'TMPDIR'] as const;
