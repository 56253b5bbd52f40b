import { Alert, AlertDescription, AlertTitle } from "@berth/ui/alert";
import { errorMessage } from "../lib/errorMessage.ts";
import { AlertIcon } from "./icons.tsx";

/**
 * A failed call's message (or a message already written for people, as a string), announced to
 * screen readers; renders nothing without an error. With a `prefix` (what failed) that is the
 * title and the message the detail; without one the message stands alone.
 */
export function ErrorAlert({
  error,
  prefix,
  className,
}: {
  error: unknown;
  prefix?: string;
  className?: string;
}) {
  if (error === null || error === undefined) return null;
  const message = typeof error === "string" ? error : errorMessage(error);
  return (
    <Alert role="alert" variant="destructive" className={className}>
      <AlertIcon />
      {prefix === undefined ? (
        <AlertTitle>{message}</AlertTitle>
      ) : (
        <>
          <AlertTitle>{prefix}</AlertTitle>
          <AlertDescription>{message}</AlertDescription>
        </>
      )}
    </Alert>
  );
}
