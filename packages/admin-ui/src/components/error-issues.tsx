import { CyrnelHttpError } from '@cyrnel/client';

/**
 * The validation issues of a refused request (the answer's `details[]`: path and message), as a
 * list under the error line; nothing when the error carries none.
 */
export function ErrorIssues({ error, testId }: { error: unknown; testId: string }) {
  if (!(error instanceof CyrnelHttpError) || !Array.isArray(error.details)) return null;
  const issues = (error.details as { path?: unknown; message?: unknown }[]).filter(
    (issue) => typeof issue.message === 'string',
  );
  if (issues.length === 0) return null;
  return (
    <ul class="error" data-testid={testId}>
      {issues.map((issue, index) => (
        <li key={index}>
          {typeof issue.path === 'string' && issue.path ? <code>{issue.path}</code> : null}{' '}
          {String(issue.message)}
        </li>
      ))}
    </ul>
  );
}
