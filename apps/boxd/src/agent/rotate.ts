import { AGENT_ROUTES, rotateResponseSchema } from "@berth/box-protocol";
import type { Logger } from "pino";
import { writeCredential, type StoredCredential } from "./credentialFile.ts";
import { describeFetchError, refusalMessage } from "./httpMessage.ts";

/** What asking for a new credential came to. */
export type ExchangeOutcome =
  | { readonly kind: "issued"; readonly credential: string }
  /** The credential presented is refused (401): the machine was revoked. */
  | { readonly kind: "revoked" }
  /** Anything else: the old credential still works, and Berth asks again later. */
  | { readonly kind: "failed"; readonly reason: string };

/**
 * Exchanges the machine's credential for a new one (POST AGENT_ROUTES.rotate). Berth keeps the
 * old one accepted until the new one opens a channel, so the caller saves the new one first and
 * only then connects with it; an answer lost here costs nothing.
 */
export async function exchangeCredential(options: {
  readonly server: string;
  readonly credential: string;
}): Promise<ExchangeOutcome> {
  try {
    const response = await fetch(`${options.server}${AGENT_ROUTES.rotate}`, {
      method: "POST",
      headers: { authorization: `Bearer ${options.credential}` },
    });
    if (response.status === 401) {
      await response.body?.cancel();
      return { kind: "revoked" };
    }
    if (response.status !== 201)
      return {
        kind: "failed",
        reason: `HTTP ${String(response.status)}: ${await refusalMessage(response)}`,
      };
    const parsed = rotateResponseSchema.safeParse(await response.json());
    return parsed.success
      ? { kind: "issued", credential: parsed.data.credential }
      : { kind: "failed", reason: "the answer is not a credential" };
  } catch (error) {
    return { kind: "failed", reason: describeFetchError(error) };
  }
}

/** What a rotation came to, for the channel loop. */
export type RotationResult = "rotated" | "revoked" | "kept" | "busy";

/**
 * The machine's credential as the agent holds it now, and its rotation: exchange, save (the
 * file replaced atomically), and only then use. A rotation already under way answers `busy`
 * (Berth may ask twice: at connect and at a heartbeat).
 */
export class CredentialKeeper {
  #stored: StoredCredential;
  #rotating = false;

  constructor(
    private readonly stateDir: string,
    stored: StoredCredential,
    private readonly logger: Logger,
  ) {
    this.#stored = stored;
  }

  get current(): StoredCredential {
    return this.#stored;
  }

  async rotate(): Promise<RotationResult> {
    if (this.#rotating) return "busy";
    this.#rotating = true;
    try {
      const exchanged = await exchangeCredential({
        server: this.#stored.server,
        credential: this.#stored.credential,
      });
      switch (exchanged.kind) {
        case "revoked":
          return "revoked";
        case "failed":
          this.logger.warn(
            { reason: exchanged.reason },
            "credential rotation failed; kept the old one",
          );
          return "kept";
        case "issued":
          return this.#save({ ...this.#stored, credential: exchanged.credential });
        default:
          return assertNever(exchanged);
      }
    } finally {
      this.#rotating = false;
    }
  }

  #save(next: StoredCredential): RotationResult {
    try {
      const path = writeCredential(this.stateDir, next);
      this.#stored = next;
      this.logger.info({ credentialFile: path }, "credential rotated");
      return "rotated";
    } catch (error) {
      // Unsaved, the new one is never used: Berth keeps the old one and asks again.
      this.logger.error(
        { err: error, stateDir: this.stateDir },
        "could not save the rotated credential; kept the old one",
      );
      return "kept";
    }
  }
}

function assertNever(value: never): never {
  throw new Error(`unexpected exchange outcome ${JSON.stringify(value)}`);
}
