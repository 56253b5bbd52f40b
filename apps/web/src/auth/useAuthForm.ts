import { useState } from "react";
import { errorMessage } from "../lib/errorMessage.ts";
import { submitHandler } from "../lib/submitHandler.ts";

/**
 * What to show for a refused sign-in or sign-up. The limiter's own text says nothing about when
 * to come back; its window is a minute.
 */
export function authFailure(
  error: { status: number; message?: string | undefined },
  fallback: string,
): string {
  return error.status === 429 ? "Too many attempts, wait a minute" : (error.message ?? fallback);
}

/**
 * The submit handler and state of a form that signs someone in or up. `run` gets the submitted
 * fields and answers a message to show, or null once it is leaving the page (the form then stays
 * disabled while the next one loads).
 */
export function useAuthForm(run: (fields: FormData) => Promise<string | null>) {
  const [error, setError] = useState<string | null>(null);
  const [pending, setPending] = useState(false);
  const onSubmit = submitHandler((fields) => {
    setPending(true);
    setError(null);
    void run(fields)
      .catch((thrown: unknown) => errorMessage(thrown))
      .then((failure) => {
        if (failure === null) return;
        setError(failure);
        setPending(false);
      });
  });
  return { error, pending, onSubmit };
}
