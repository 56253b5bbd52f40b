"use client";

import { Button } from "@berth/ui/button";
import { useState } from "react";

export function SignOutButton() {
  const [failed, setFailed] = useState<string | null>(null);
  async function signOut(): Promise<void> {
    // Loaded on the click: every signed-in page shows this button, and the auth client is not
    // needed to show any of them.
    const { authClient } = await import("../auth/authClient.ts");
    const { error } = await authClient.signOut();
    if (error !== null) {
      setFailed(error.message ?? "Could not sign out; try again.");
      return;
    }
    // A full load, not a client navigation: nothing cached for this person survives it.
    window.location.assign("/sign-in");
  }
  return (
    <>
      <Button type="button" variant="outline" size="sm" onClick={() => void signOut()}>
        Sign out
      </Button>
      {failed === null ? null : (
        <span role="alert" className="text-sm text-destructive">
          {failed}
        </span>
      )}
    </>
  );
}
