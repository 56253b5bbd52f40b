/** Label and field selectors as list and watch accept them (§4.3). */
import { badRequest } from "./errors.ts";
import type { KubeObject } from "./objects.ts";
import { fieldAt, meta } from "./objects.ts";

/** One requirement of a label selector; the closed set of operators of the selector grammar. */
export type LabelRequirement =
  | { op: "equals"; key: string; value: string }
  | { op: "notEquals"; key: string; value: string }
  | { op: "in"; key: string; values: string[] }
  | { op: "notIn"; key: string; values: string[] }
  | { op: "exists"; key: string }
  | { op: "doesNotExist"; key: string };

export type Matcher = (object: KubeObject) => boolean;

const KEY =
  /^([a-z0-9A-Z]([-a-z0-9A-Z_.]*[a-z0-9A-Z])?\/)?[a-z0-9A-Z]([-a-z0-9A-Z_.]*[a-z0-9A-Z])?$/;
const VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;

/** Splits on commas that are not inside `( … )`. */
function splitTopLevel(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    if (char === "(") depth++;
    else if (char === ")") depth--;
    else if (char === "," && depth === 0) {
      parts.push(text.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(text.slice(start));
  return parts.map((part) => part.trim());
}

function checkKey(key: string, raw: string): string {
  if (!KEY.test(key))
    throw badRequest(`unable to parse requirement: invalid label key "${key}" in "${raw}"`);
  return key;
}

function checkValue(value: string, raw: string): string {
  if (!VALUE.test(value) || value.length > 63) {
    throw badRequest(`unable to parse requirement: invalid label value "${value}" in "${raw}"`);
  }
  return value;
}

function parseRequirement(raw: string): LabelRequirement {
  const setMatch = /^(\S+)\s+(in|notin)\s*\(([^)]*)\)$/.exec(raw);
  if (setMatch) {
    const key = checkKey(setMatch[1] ?? "", raw);
    const values = (setMatch[3] ?? "").split(",").map((value) => checkValue(value.trim(), raw));
    return setMatch[2] === "in" ? { op: "in", key, values } : { op: "notIn", key, values };
  }
  const opMatch = /^([^=!\s]+)\s*(==|=|!=)\s*(.*)$/.exec(raw);
  if (opMatch) {
    const key = checkKey(opMatch[1] ?? "", raw);
    const value = checkValue((opMatch[3] ?? "").trim(), raw);
    return opMatch[2] === "!=" ? { op: "notEquals", key, value } : { op: "equals", key, value };
  }
  if (raw.startsWith("!")) return { op: "doesNotExist", key: checkKey(raw.slice(1).trim(), raw) };
  return { op: "exists", key: checkKey(raw, raw) };
}

export function parseLabelSelector(text: string): LabelRequirement[] {
  if (text.trim() === "") return [];
  return splitTopLevel(text).map(parseRequirement);
}

function satisfies(labels: Record<string, string>, requirement: LabelRequirement): boolean {
  const value = Object.hasOwn(labels, requirement.key) ? labels[requirement.key] : undefined;
  switch (requirement.op) {
    case "equals":
      return value === requirement.value;
    case "notEquals":
      return value !== requirement.value;
    case "in":
      return value !== undefined && requirement.values.includes(value);
    case "notIn":
      return value === undefined || !requirement.values.includes(value);
    case "exists":
      return value !== undefined;
    case "doesNotExist":
      return value === undefined;
  }
}

interface FieldRequirement {
  field: string;
  value: string;
  negated: boolean;
}

/**
 * Parses a field selector, rejecting labels the kind does not support with the exact 400 of §3.
 * `allowed` lists the kind's extra labels; metadata.name and metadata.namespace always work.
 */
export function parseFieldSelector(text: string, allowed: string[]): FieldRequirement[] {
  if (text.trim() === "") return [];
  return text.split(",").map((raw) => {
    const match = /^([^=!]+)(==|=|!=)(.*)$/.exec(raw.trim());
    if (!match) throw badRequest(`invalid selector: '${text}'; can't understand '${raw}'`);
    const field = (match[1] ?? "").trim();
    if (field !== "metadata.name" && field !== "metadata.namespace" && !allowed.includes(field)) {
      throw badRequest(`field label not supported: ${field}`);
    }
    return { field, value: (match[3] ?? "").trim(), negated: match[2] === "!=" };
  });
}

function fieldValues(object: KubeObject, field: string): string[] {
  // status.podIPs is a list of {ip}; a selector on it matches any of them.
  if (field === "status.podIPs") {
    const status = object.status as { podIPs?: { ip?: string }[] } | undefined;
    return (status?.podIPs ?? []).map((entry) => entry.ip ?? "");
  }
  return [fieldAt(object, field) ?? ""];
}

/** One predicate for both selectors; an empty selector matches everything. */
export function matcher(labels: LabelRequirement[], fields: FieldRequirement[]): Matcher {
  return (object) => {
    const objectLabels = meta(object).labels ?? {};
    if (!labels.every((requirement) => satisfies(objectLabels, requirement))) return false;
    return fields.every(({ field, value, negated }) => {
      const hit = fieldValues(object, field).includes(value);
      return negated ? !hit : hit;
    });
  };
}
