declare module 'virtual:ts-libs' {
  /** The TypeScript standard library files (ES2022 and what it references), by file name. */
  const libs: Record<string, string>;
  export default libs;
}
