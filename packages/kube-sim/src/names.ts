/** Object names: generateName (K12) and the DNS-1123 subdomain rule. */
import { randomInt } from "node:crypto";

/** The alphabet of `util/rand.String`: no vowels (no words) and no look-alikes (0, 1, 3). */
const ALPHABET = "bcdfghjklmnpqrstvwxz2456789";
const SUFFIX_LENGTH = 5;
const MAX_PREFIX = 63 - SUFFIX_LENGTH;

/** How often create retries a generated name that is taken (K7 createWithGenerateNameRetry). */
export const GENERATE_NAME_ATTEMPTS = 8;

/** A random suffix source; tests inject one to force collisions. */
export type NameSuffix = () => string;

export const randomSuffix: NameSuffix = () =>
  Array.from({ length: SUFFIX_LENGTH }, () => ALPHABET[randomInt(ALPHABET.length)]).join("");

export function generatedName(prefix: string, suffix: NameSuffix): string {
  return `${prefix.slice(0, MAX_PREFIX)}${suffix()}`;
}

const SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** The message of a failed DNS-1123 subdomain check, or undefined when the name is valid. */
export function invalidNameMessage(name: string): string | undefined {
  if (name.length > 253) {
    return `Invalid value: ${JSON.stringify(name)}: must be no more than 253 characters`;
  }
  if (SUBDOMAIN.test(name)) return undefined;
  return (
    `Invalid value: ${JSON.stringify(name)}: a lowercase RFC 1123 subdomain must consist of lower case ` +
    "alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character " +
    "(e.g. 'example.com', regex used for validation is " +
    String.raw`'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`
  );
}
