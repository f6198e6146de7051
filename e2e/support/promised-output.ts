/**
 * The lines a script's comments say it prints: each comment `<comment> → <line>` (`# → ` in shell,
 * `// → ` in JavaScript, indented or not), the text after the arrow, in the script's order.
 *
 * @example
 * ```ts
 * promisedOutput('echo hi\n# → hi\n', '#'); // ['hi']
 * ```
 */
export function promisedOutput(source: string, comment: '#' | '//'): string[] {
  const marker = `${comment} → `;
  return source
    .split('\n')
    .filter((line) => line.trimStart().startsWith(marker))
    .map((line) => line.trimStart().slice(marker.length));
}

/**
 * The promised lines (see {@link promisedOutput}) that `printed` does not hold as whole lines in
 * the same order: empty when the output keeps every promise.
 */
export function brokenPromises(promised: readonly string[], printed: readonly string[]): string[] {
  let at = 0;
  const broken: string[] = [];
  for (const line of promised) {
    const found = printed.indexOf(line, at);
    if (found === -1) broken.push(line);
    else at = found + 1;
  }
  return broken;
}
