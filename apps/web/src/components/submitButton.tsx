"use client";

import { Button, type ButtonProps } from "@berth/ui/button";
import { useSyncExternalStore } from "react";

/** Hydration is the only change to follow, and React itself re-renders for it. */
const noSubscription = () => () => undefined;

/**
 * A form's submit button, disabled while `busy` and until the page has hydrated. Before
 * hydration the form has no submit handler yet: a click (or Enter in a field) would submit it
 * natively, as a GET that reloads the page with every field in its address, a password
 * included. A disabled default button stops both.
 */
export function SubmitButton({
  busy = false,
  ...props
}: Omit<ButtonProps, "type" | "disabled" | "asChild"> & { busy?: boolean }) {
  // False in the server's render and while hydrating, true from the first client render on.
  const hydrated = useSyncExternalStore(
    noSubscription,
    () => true,
    () => false,
  );
  return <Button type="submit" disabled={busy || !hydrated} {...props} />;
}
