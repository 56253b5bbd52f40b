/**
 * `/openapi/v2` in protobuf, the only encoding kubectl's discovery client reads it in (gnostic's
 * `openapi.v2.Document`; there is no JSON fallback, so without this kubectl < 1.25 cannot validate
 * client-side at all). Only what kubectl reads is encoded: the version, info and the
 * `definitions`, with every schema keyword a Swagger 2.0 schema may carry. Field numbers are the
 * ones in gnostic's `OpenAPIv2.proto`. Vendor extensions, defaults and enum values go as the
 * `yaml` text of gnostic's `Any` (JSON is YAML).
 */
import type { JsonSchema } from "./openapiSchemas.ts";

export const OPENAPI_V2_PROTOBUF = "application/com.github.proto-openapi.spec.v2@v1.0+protobuf";

type Field = Buffer;

function varint(value: number): Buffer {
  const bytes: number[] = [];
  let rest = BigInt(value);
  if (rest < 0n) rest += 1n << 64n; // two's complement, as protobuf encodes negative int64
  do {
    const low = Number(rest & 0x7fn);
    rest >>= 7n;
    bytes.push(rest === 0n ? low : low | 0x80);
  } while (rest !== 0n);
  return Buffer.from(bytes);
}

function key(field: number, wireType: 0 | 1 | 2): Buffer {
  return varint(field * 8 + wireType);
}

function bytesField(field: number, payload: Buffer): Field {
  return Buffer.concat([key(field, 2), varint(payload.length), payload]);
}

function message(field: number, parts: Field[]): Field {
  return bytesField(field, Buffer.concat(parts));
}

function text(field: number, value: unknown): Field[] {
  return typeof value === "string" && value !== "" ? [bytesField(field, Buffer.from(value))] : [];
}

function flag(field: number, value: unknown): Field[] {
  return value === true ? [Buffer.concat([key(field, 0), varint(1)])] : [];
}

function integer(field: number, value: unknown): Field[] {
  return typeof value === "number" && Number.isInteger(value)
    ? [Buffer.concat([key(field, 0), varint(value)])]
    : [];
}

function double(field: number, value: unknown): Field[] {
  if (typeof value !== "number") return [];
  const payload = Buffer.alloc(8);
  payload.writeDoubleLE(value);
  return [Buffer.concat([key(field, 1), payload])];
}

/** gnostic's `Any` with its `yaml` text. */
function anyValue(field: number, value: unknown): Field {
  return message(field, text(2, JSON.stringify(value)));
}

function strings(field: number, value: unknown): Field[] {
  return Array.isArray(value) ? value.flatMap((item) => text(field, item)) : [];
}

function isObject(value: unknown): value is JsonSchema {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A `Schema` message (fields 1–31 of gnostic's `Schema`). */
function schema(node: JsonSchema): Buffer {
  const parts: Field[] = [
    ...text(1, node.$ref),
    ...text(2, node.format),
    ...text(3, node.title),
    ...text(4, node.description),
    ...("default" in node ? [anyValue(5, node.default)] : []),
    ...double(6, node.multipleOf),
    ...double(7, node.maximum),
    ...flag(8, node.exclusiveMaximum),
    ...double(9, node.minimum),
    ...flag(10, node.exclusiveMinimum),
    ...integer(11, node.maxLength),
    ...integer(12, node.minLength),
    ...text(13, node.pattern),
    ...integer(14, node.maxItems),
    ...integer(15, node.minItems),
    ...flag(16, node.uniqueItems),
    ...integer(17, node.maxProperties),
    ...integer(18, node.minProperties),
    ...strings(19, node.required),
    ...(Array.isArray(node.enum) ? node.enum.map((value) => anyValue(20, value)) : []),
  ];
  const extra = node.additionalProperties;
  if (isObject(extra)) parts.push(message(21, [bytesField(1, schema(extra))]));
  if (typeof extra === "boolean") {
    parts.push(message(21, [Buffer.concat([key(2, 0), varint(extra ? 1 : 0)])]));
  }
  if (typeof node.type === "string") parts.push(message(22, text(1, node.type)));
  if (isObject(node.items)) parts.push(message(23, [bytesField(1, schema(node.items))]));
  if (Array.isArray(node.allOf)) {
    for (const sub of node.allOf) if (isObject(sub)) parts.push(bytesField(24, schema(sub)));
  }
  if (isObject(node.properties)) {
    parts.push(message(25, namedSchemas(node.properties)));
  }
  for (const [name, value] of Object.entries(node)) {
    if (name.startsWith("x-")) parts.push(message(31, [...text(1, name), anyValue(2, value)]));
  }
  return Buffer.concat(parts);
}

/** Repeated `NamedSchema` entries (field 1 of `Properties` and `Definitions`). */
function namedSchemas(byName: JsonSchema): Field[] {
  return Object.entries(byName)
    .filter((entry): entry is [string, JsonSchema] => isObject(entry[1]))
    .map(([name, value]) => message(1, [...text(1, name), bytesField(2, schema(value))]));
}

/** The protobuf `Document` of a Swagger 2.0 document's version, info and definitions. */
export function swaggerProtobuf(document: JsonSchema): Buffer {
  const info = isObject(document.info) ? document.info : {};
  const definitions = isObject(document.definitions) ? document.definitions : {};
  return Buffer.concat([
    ...text(1, document.swagger),
    message(2, [...text(1, info.title), ...text(2, info.version)]),
    message(9, namedSchemas(definitions)),
  ]);
}
