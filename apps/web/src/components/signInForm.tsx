"use client";

import { useState, type SubmitEvent } from "react";
import { authClient } from "../auth/authClient.ts";
import { formText } from "../lib/formText.ts";

/** Email + password sign-in; on success a full load of `next` (a path on this site). */
export function SignInForm({ next }: { next: string }) {
  const [error, setError] = useState<string | null>(null);
  const [pending, setPending] = useState(false);

  async function submit(event: SubmitEvent<HTMLFormElement>): Promise<void> {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    setPending(true);
    setError(null);
    const result = await authClient.signIn.email({
      email: formText(form, "email"),
      password: formText(form, "password"),
    });
    if (result.error !== null) {
      // The limiter's own text says nothing about when to come back; the window is a minute.
      setError(
        result.error.status === 429
          ? "Too many attempts, wait a minute"
          : (result.error.message ?? "Could not sign in."),
      );
      setPending(false);
      return;
    }
    window.location.assign(next);
  }

  return (
    <form className="stack" onSubmit={(event) => void submit(event)}>
      <label>
        Email
        <input name="email" type="email" autoComplete="username" required />
      </label>
      <label>
        Password
        <input name="password" type="password" autoComplete="current-password" required />
      </label>
      {error === null ? null : (
        <p role="alert" className="error">
          {error}
        </p>
      )}
      <button type="submit" disabled={pending}>
        Sign in
      </button>
    </form>
  );
}
