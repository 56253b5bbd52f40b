"use client";

import { Button } from "@berth/ui/button";
import { useState } from "react";
import { authClient } from "../auth/authClient.ts";

export function SignOutButton() {
  const [failed, setFailed] = useState<string | null>(null);
  async function signOut(): Promise<void> {
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
