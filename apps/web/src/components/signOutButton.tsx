"use client";

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
      <button type="button" onClick={() => void signOut()}>
        Sign out
      </button>
      {failed === null ? null : (
        <span role="alert" className="error">
          {failed}
        </span>
      )}
    </>
  );
}
