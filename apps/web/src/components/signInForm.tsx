"use client";

import { Input } from "@berth/ui/input";
import { Label } from "@berth/ui/label";
import { authClient } from "../auth/authClient.ts";
import { authFailure, useAuthForm } from "../auth/useAuthForm.ts";
import { formText } from "../lib/formText.ts";
import { ErrorAlert } from "./errorAlert.tsx";
import { SubmitButton } from "./submitButton.tsx";

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
    <form className="flex flex-col gap-4" onSubmit={onSubmit}>
      <Label>
        Email
        <Input name="email" type="email" autoComplete="username" required />
      </Label>
      <Label>
        Password
        <Input name="password" type="password" autoComplete="current-password" required />
      </Label>
      <ErrorAlert error={error} />
      <SubmitButton busy={pending} className="w-full">
        Sign in
      </SubmitButton>
    </form>
  );
}
