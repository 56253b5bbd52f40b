"use client";

import { useMutation } from "@tanstack/react-query";
import { useState, type SubmitEvent } from "react";
import { authClient, invitationHeader } from "../../auth/authClient.ts";
import { errorMessage } from "../../lib/errorMessage.ts";
import { useTRPC } from "../../trpc/react.tsx";
import { formText } from "../../lib/formText.ts";

/**
 * A new account for the holder of an invitation: sign-up (which the API allows only with a
 * pending invitation, sent in a header) signs the person in, then the invitation is accepted.
 */
export function SignUpForm({ token }: { token: string }) {
  const trpc = useTRPC();
  const accept = useMutation(trpc.invitations.accept.mutationOptions());
  const [error, setError] = useState<string | null>(null);
  const [pending, setPending] = useState(false);

  async function submit(event: SubmitEvent<HTMLFormElement>): Promise<void> {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    setPending(true);
    setError(null);
    const signUp = await authClient.signUp.email({
      name: formText(form, "name"),
      email: formText(form, "email"),
      password: formText(form, "password"),
      fetchOptions: { headers: { [invitationHeader]: token } },
    });
    if (signUp.error !== null) {
      setError(
        signUp.error.status === 429
          ? "Too many attempts, wait a minute"
          : (signUp.error.message ?? "Could not create the account."),
      );
      setPending(false);
      return;
    }
    try {
      const { workspaceId } = await accept.mutateAsync({ token });
      window.location.assign(`/?workspace=${workspaceId}`);
    } catch (acceptError) {
      // The account exists and is signed in; reloading this page offers "Join" instead.
      setError(`Your account was created, but joining failed: ${errorMessage(acceptError)}`);
      setPending(false);
    }
  }

  return (
    <form className="stack" aria-label="Create account" onSubmit={(event) => void submit(event)}>
      <label>
        Name
        <input name="name" autoComplete="name" required maxLength={100} />
      </label>
      <label>
        Email
        <input name="email" type="email" autoComplete="email" required maxLength={254} />
      </label>
      <label>
        Password
        <input
          name="password"
          type="password"
          autoComplete="new-password"
          required
          minLength={8}
          maxLength={256}
        />
      </label>
      {error === null ? null : (
        <p role="alert" className="error">
          {error}
        </p>
      )}
      <button type="submit" disabled={pending}>
        Create account and join
      </button>
    </form>
  );
}
