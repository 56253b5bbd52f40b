import {
  AGENT_ROUTES,
  enrollResponseSchema,
  type AgentFacts,
  type EnrollRequest,
} from "@berth/box-protocol";
import { writeCredential, type StoredCredential } from "./credentialFile.ts";
import { AGENT_EXIT, AgentExit } from "./exitCodes.ts";
import { refusalMessage } from "./httpMessage.ts";

/**
 * Exchanges a one-time code for the machine's credential and stores it (credentialFile.ts).
 * Never retried: a code is single-use, so a refusal is final (AgentExit enrollRefused) and a
 * network failure leaves the code unspent for the next run.
 */
export async function enroll(options: {
  readonly server: string;
  readonly stateDir: string;
  readonly code: string;
  readonly name: string | undefined;
  readonly facts: AgentFacts;
}): Promise<{ stored: StoredCredential; path: string }> {
  const body: EnrollRequest = {
    ...options.facts,
    code: options.code,
    ...(options.name === undefined ? {} : { name: options.name }),
  };
  let response: Response;
  try {
    response = await fetch(`${options.server}${AGENT_ROUTES.enroll}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
  } catch (error) {
    throw new AgentExit(
      AGENT_EXIT.failed,
      `could not reach ${options.server} to enroll: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  if (response.status !== 201) {
    throw new AgentExit(
      AGENT_EXIT.enrollRefused,
      `enrollment refused (${String(response.status)}): ${await refusalMessage(response)}`,
    );
  }
  const parsed = enrollResponseSchema.safeParse(await response.json().catch(() => undefined));
  if (!parsed.success) {
    throw new AgentExit(AGENT_EXIT.failed, "the server's enrollment answer is not one Berth gives");
  }
  const stored: StoredCredential = { server: options.server, ...parsed.data };
  return { stored, path: writeCredential(options.stateDir, stored) };
}
