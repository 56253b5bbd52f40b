import { describe, expect, it } from "vitest";
import {
  answerLaunchChallenge,
  isLaunchProof,
  newLaunchChallenge,
  newLaunchNonce,
} from "./launchProof.ts";

describe("the launch proof", () => {
  const nonce = newLaunchNonce();

  it("is answered by the holder of this start's nonce", () => {
    const challenge = newLaunchChallenge();
    const proof = answerLaunchChallenge(challenge, nonce) ?? null;
    expect(isLaunchProof({ nonce, challenge, proof })).toBe(true);
  });

  it("is not answered by another start's server, nor by replaying an earlier answer", () => {
    const challenge = newLaunchChallenge();
    const otherStart = answerLaunchChallenge(challenge, newLaunchNonce()) ?? null;
    expect(isLaunchProof({ nonce, challenge, proof: otherStart })).toBe(false);
    const earlier = answerLaunchChallenge(newLaunchChallenge(), nonce) ?? null;
    expect(isLaunchProof({ nonce, challenge, proof: earlier })).toBe(false);
    expect(isLaunchProof({ nonce, challenge, proof: null })).toBe(false);
    expect(isLaunchProof({ nonce, challenge, proof: "" })).toBe(false);
  });

  it("answers no request without one well-formed challenge, and never shows the nonce", () => {
    expect(answerLaunchChallenge(undefined, nonce)).toBeUndefined();
    expect(answerLaunchChallenge("", nonce)).toBeUndefined();
    expect(answerLaunchChallenge(["a", "b"], nonce)).toBeUndefined();
    expect(answerLaunchChallenge("x".repeat(129), nonce)).toBeUndefined();
    expect(answerLaunchChallenge("x".repeat(128), nonce)).not.toContain(nonce);
  });
});
