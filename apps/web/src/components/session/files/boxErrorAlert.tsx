import { ErrorAlert } from "../../errorAlert.tsx";
import { errorMessage } from "../../../lib/errorMessage.ts";
import { berthOf } from "./boxErrors.ts";

/**
 * A failed box call, with what to do about it: a blocked workspace needs an admin (retrying
 * cannot help), a retryable failure is worth one more try, anything else says what the box
 * answered.
 */
export function BoxErrorAlert({ error, prefix }: { error: unknown; prefix: string }) {
  if (error === null || error === undefined) return null;
  const berth = berthOf(error);
  const message = errorMessage(error);
  if (berth?.code === "blocked" || berth?.code === "restore_blocked")
    return (
      <ErrorAlert
        prefix={`${prefix}: the workspace cannot be restored`}
        error={`${message} Nothing was changed. A workspace admin must restore another archive revision or start the box fresh from an empty workspace (recovery.restoreRevision or recovery.startFresh); then try again.`}
      />
    );
  if (berth?.retryable === true)
    return <ErrorAlert prefix={prefix} error={`${message} Try again in a moment.`} />;
  return <ErrorAlert prefix={prefix} error={message} />;
}
