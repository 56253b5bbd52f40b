import { errorMessage } from "../lib/errorMessage.ts";

/**
 * A failed call's message (or a message already written for people, as a string), announced to
 * screen readers; renders nothing without an error.
 */
export function ErrorAlert({ error, prefix }: { error: unknown; prefix?: string }) {
  if (error === null || error === undefined) return null;
  return (
    <p role="alert" className="error">
      {prefix === undefined ? "" : `${prefix}: `}
      {typeof error === "string" ? error : errorMessage(error)}
    </p>
  );
}
