import { TRPCClientError } from "@trpc/client";
import { describe, expect, it } from "vitest";
import { gitFailure } from "./git/gitErrors.ts";
import { terminalErrorText } from "./terminal/terminalErrors.ts";

// The next step the git panel and the terminal add to an API error follows its `retryable`:
// a person is told to try again exactly when the server says the same call may succeed.

function answered(code: string, retryable: boolean): TRPCClientError<never> {
  return TRPCClientError.from({
    error: {
      message: "The box could not be created.",
      code: -32603,
      data: { code: "SERVICE_UNAVAILABLE", httpStatus: 503, berth: { code, retryable } },
    },
  });
}

describe.each([
  ["git", gitFailure],
  ["terminal", terminalErrorText],
] as const)("the %s panel's advice", (_, text) => {
  it.each(["spawn_failed", "box_unavailable", "wait_timeout"])(
    "%s says to try again exactly when it is retryable",
    (code) => {
      expect(text(answered(code, true))).toMatch(/try again in a moment/i);
      const final = text(answered(code, false));
      expect(final).not.toMatch(/try again/i);
      expect(final).toMatch(/tell its operator/);
    },
  );

  it("blocked sends the person to an admin, never to a retry", () => {
    const advice = text(answered("blocked", false));
    expect(advice).toMatch(/admin/);
    expect(advice).not.toMatch(/try again/i);
  });
});
