"use client";

import { Input } from "@berth/ui/input";
import { Label } from "@berth/ui/label";
import { useMutation } from "@tanstack/react-query";
import { authClient, invitationHeader } from "../../auth/authClient.ts";
import { authFailure, useAuthForm } from "../../auth/useAuthForm.ts";
import { errorMessage } from "../../lib/errorMessage.ts";
import { formText } from "../../lib/formText.ts";
import { useTRPC } from "../../trpc/react.tsx";
import { ErrorAlert } from "../errorAlert.tsx";
import { SubmitButton } from "../submitButton.tsx";

/**
 * A new account for the holder of an invitation: sign-up (which the API allows only with a
 * pending invitation, sent in a header) signs the person in, then the invitation is accepted.
 */
export function SignUpForm({ token }: { token: string }) {
  const trpc = useTRPC();
  const accept = useMutation(trpc.invitations.accept.mutationOptions());
  const { error, pending, onSubmit } = useAuthForm(async (fields) => {
    const signUp = await authClient.signUp.email({
      name: formText(fields, "name"),
      email: formText(fields, "email"),
      password: formText(fields, "password"),
      fetchOptions: { headers: { [invitationHeader]: token } },
    });
    if (signUp.error !== null) return authFailure(signUp.error, "Could not create the account.");
    try {
      const { workspaceId } = await accept.mutateAsync({ token });
      window.location.assign(`/?workspace=${workspaceId}`);
      return null;
    } catch (acceptError) {
      // The account exists and is signed in; reloading this page offers "Join" instead.
      return `Your account was created, but joining failed: ${errorMessage(acceptError)}`;
    }
  });

  return (
    <form className="flex flex-col gap-4" aria-label="Create account" onSubmit={onSubmit}>
      <Label>
        Name
        <Input name="name" autoComplete="name" required maxLength={100} />
      </Label>
      <Label>
        Email
        <Input name="email" type="email" autoComplete="email" required maxLength={254} />
      </Label>
      <Label>
        Password
        <Input
          name="password"
          type="password"
          autoComplete="new-password"
          required
          minLength={8}
          maxLength={256}
        />
      </Label>
      <ErrorAlert error={error} />
      <SubmitButton busy={pending} className="w-full">
        Create account and join
      </SubmitButton>
    </form>
  );
}
