"use client";

import { authClient } from "../auth/authClient.ts";
import { authFailure, useAuthForm } from "../auth/useAuthForm.ts";
import { formText } from "../lib/formText.ts";
import { ErrorAlert } from "./errorAlert.tsx";

/** Email + password sign-in; on success a full load of `next` (a path on this site). */
export function SignInForm({ next }: { next: string }) {
  const { error, pending, onSubmit } = useAuthForm(async (fields) => {
    const result = await authClient.signIn.email({
      email: formText(fields, "email"),
      password: formText(fields, "password"),
    });
    if (result.error !== null) return authFailure(result.error, "Could not sign in.");
    window.location.assign(next);
    return null;
  });

  return (
    <form className="stack" onSubmit={onSubmit}>
      <label>
        Email
        <input name="email" type="email" autoComplete="username" required />
      </label>
      <label>
        Password
        <input name="password" type="password" autoComplete="current-password" required />
      </label>
      <ErrorAlert error={error} />
      <button type="submit" disabled={pending}>
        Sign in
      </button>
    </form>
  );
}
