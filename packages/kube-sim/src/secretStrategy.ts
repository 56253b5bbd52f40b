/**
 * The core Secret kind (v1) as the real server decodes, defaults and validates it:
 * - `data` is `map[string][]byte`, so each value is base64 that Go's JSON decoder must accept
 *   (goBase64.ts); it is stored and returned re-encoded, keys sorted, as Go writes a map.
 * - `stringData` is merged over `data` by the v1→internal conversion
 *   (`Convert_v1_Secret_To_core_Secret`: "StringData overwrites Data") and is never stored.
 * - `type` defaults to `Opaque` (`SetDefaults_Secret`).
 * - `ValidateSecret`: keys are config keys (`IsConfigMapKey`); `ValidateSecretUpdate`: `type` is
 *   immutable, and once `immutable: true` neither `immutable` nor `data` may change.
 * Type-specific keys (tls.crt, .dockerconfigjson, …) and the 1 MiB limit are not checked.
 */
import type { CoreStrategy } from "./coreStrategy.ts";
import { DecodeError } from "./coreStrategy.ts";
import type { StatusCause } from "./errors.ts";
import { Base64Error, decodeGoBase64 } from "./goBase64.ts";
import type { KubeObject } from "./objects.ts";
import { isObject, jsonEqual } from "./objects.ts";

export const OPAQUE = "Opaque";

const CONFIG_KEY = /^[-._a-zA-Z0-9]+$/;
/** `RegexError(configMapKeyErrMsg, configMapKeyFmt, "key.name", "KEY_NAME", "key-name")`, spaces and all. */
const CONFIG_KEY_MESSAGE =
  "a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')";
const IMMUTABLE_MESSAGE = "Forbidden: field is immutable when `immutable` is set";

/** Go's name for a JSON value's type in `cannot unmarshal <type> into …`. */
function jsonKind(value: unknown): string {
  if (Array.isArray(value)) return "array";
  if (value === null) return "null";
  return typeof value === "object" ? "object" : typeof value;
}

function cannotUnmarshal(value: unknown, field: string, goType: string): DecodeError {
  return new DecodeError(
    `json: cannot unmarshal ${jsonKind(value)} into Go struct field Secret.${field} of type ${goType}`,
  );
}

/** The decoded `data` bytes of a stored Secret, by key (for the kubelet). */
export function secretData(secret: KubeObject): Map<string, Buffer> {
  const data = isObject(secret.data) ? secret.data : {};
  return new Map(
    Object.entries(data).map(([key, value]) => [
      key,
      Buffer.from(typeof value === "string" ? value : "", "base64"),
    ]),
  );
}

function decodeData(raw: unknown): Map<string, Buffer> {
  const bytes = new Map<string, Buffer>();
  if (raw === undefined || raw === null) return bytes;
  if (!isObject(raw)) throw cannotUnmarshal(raw, "data", "map[string][]uint8");
  for (const [key, value] of Object.entries(raw)) {
    // A JSON null leaves the []byte empty.
    if (value === null) bytes.set(key, Buffer.alloc(0));
    else if (typeof value !== "string") throw cannotUnmarshal(value, "data", "[]uint8");
    else {
      try {
        bytes.set(key, decodeGoBase64(value));
      } catch (error) {
        if (error instanceof Base64Error) throw new DecodeError(error.message);
        throw error;
      }
    }
  }
  return bytes;
}

function decode(object: KubeObject): KubeObject {
  const bytes = decodeData(object.data);
  const { stringData } = object;
  if (stringData !== undefined && stringData !== null) {
    if (!isObject(stringData)) throw cannotUnmarshal(stringData, "stringData", "map[string]string");
    for (const [key, value] of Object.entries(stringData)) {
      if (value !== null && typeof value !== "string")
        throw cannotUnmarshal(value, "stringData", "string");
      bytes.set(key, Buffer.from(value ?? "", "utf8"));
    }
  }
  if (object.type !== undefined && object.type !== null && typeof object.type !== "string")
    throw cannotUnmarshal(object.type, "type", "v1.SecretType");
  if (object.immutable !== undefined && object.immutable !== null) {
    if (typeof object.immutable !== "boolean")
      throw cannotUnmarshal(object.immutable, "immutable", "bool");
  }
  const decoded: KubeObject = { ...object };
  delete decoded.stringData;
  delete decoded.data;
  if (decoded.immutable === null) delete decoded.immutable;
  // Go writes a map with sorted keys and omits an empty one (`json:"data,omitempty"`).
  if (bytes.size > 0) {
    decoded.data = Object.fromEntries(
      [...bytes.keys()].sort().map((key) => [key, bytes.get(key)?.toString("base64") ?? ""]),
    );
  }
  const type = typeof object.type === "string" ? object.type : "";
  decoded.type = type === "" ? OPAQUE : type;
  return decoded;
}

/** `hasChDirPrefix` and `IsConfigMapKey`, each problem its own cause. */
function keyCauses(key: string): StatusCause[] {
  const problems: string[] = [];
  if (key.length > 253) problems.push("must be no more than 253 characters");
  if (!CONFIG_KEY.test(key)) problems.push(CONFIG_KEY_MESSAGE);
  if (key === ".") problems.push("must not be '.'");
  else if (key === "..") problems.push("must not be '..'");
  else if (key.startsWith("..")) problems.push("must not start with '..'");
  return problems.map((problem) => ({
    reason: "FieldValueInvalid",
    message: `Invalid value: ${JSON.stringify(key)}: ${problem}`,
    field: `data[${key}]`,
  }));
}

function validate(object: KubeObject, old: KubeObject | undefined): StatusCause[] {
  const causes: StatusCause[] = [];
  if (old !== undefined) {
    if (object.type !== old.type) {
      causes.push({
        reason: "FieldValueInvalid",
        message: `Invalid value: ${JSON.stringify(object.type)}: field is immutable`,
        field: "type",
      });
    }
    if (old.immutable === true) {
      if (object.immutable !== true)
        causes.push({
          reason: "FieldValueForbidden",
          message: IMMUTABLE_MESSAGE,
          field: "immutable",
        });
      if (!jsonEqual(object.data ?? {}, old.data ?? {}))
        causes.push({ reason: "FieldValueForbidden", message: IMMUTABLE_MESSAGE, field: "data" });
    }
  }
  const data = isObject(object.data) ? object.data : {};
  for (const key of Object.keys(data)) causes.push(...keyCauses(key));
  return causes;
}

export const secretStrategy: CoreStrategy = { decode, validate };
