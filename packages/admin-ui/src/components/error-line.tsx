import { CyrnelHttpError } from '@cyrnel/client';

/** The message of an error as the UI shows it: the API's text and its stable reason. */
export function describeError(error: unknown): string {
  if (error instanceof CyrnelHttpError) return `${error.message} (${error.reason ?? error.code})`;
  return error instanceof Error ? error.message : String(error);
}

/** An error shown as an alert line; nothing when there is none. */
export function ErrorLine({ error }: { error: unknown }) {
  if (error === undefined || error === null) return null;
  return (
    <p class="error" role="alert">
      {describeError(error)}
    </p>
  );
}
