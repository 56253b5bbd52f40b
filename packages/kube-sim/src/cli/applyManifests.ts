/**
 * Applying manifest files to a running simulator the way a client would: each document is POSTed
 * over HTTP to its collection, so schema validation, defaulting and admission judge it exactly as
 * they judge kubectl's create. An object that already exists is an error (the simulator has just
 * started, so it can only be the same file listed twice).
 */
import { readFileSync } from "node:fs";
import { loadAll } from "js-yaml";
import type { ResourceType } from "../resourceTypes.ts";

export interface AppliedObject {
  readonly kind: string;
  readonly namespace: string | undefined;
  readonly name: string;
}

interface Manifest {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string };
}

function isManifest(doc: unknown): doc is Manifest {
  if (typeof doc !== "object" || doc === null) return false;
  const { apiVersion, kind, metadata } = doc as Record<string, unknown>;
  return (
    typeof apiVersion === "string" &&
    typeof kind === "string" &&
    typeof metadata === "object" &&
    metadata !== null &&
    typeof (metadata as Record<string, unknown>).name === "string"
  );
}

/** Creates every object of `files`, in order; stops at the first the server refuses. */
export async function applyManifests(options: {
  readonly url: string;
  readonly types: readonly ResourceType[];
  readonly files: readonly string[];
}): Promise<AppliedObject[]> {
  const applied: AppliedObject[] = [];
  for (const file of options.files) {
    for (const doc of loadAll(readFileSync(file, "utf8"))) {
      if (doc === null || doc === undefined) continue; // an empty document (a trailing ---)
      if (!isManifest(doc)) throw new Error(`${file}: a document without apiVersion, kind or name`);
      const slash = doc.apiVersion.indexOf("/");
      const group = slash === -1 ? "" : doc.apiVersion.slice(0, slash);
      const version = doc.apiVersion.slice(slash + 1);
      const type = options.types.find(
        (candidate) =>
          candidate.group === group &&
          candidate.kind === doc.kind &&
          candidate.versions.some((served) => served.name === version),
      );
      if (type === undefined) {
        throw new Error(`${file}: kube-sim does not serve ${doc.kind} in ${doc.apiVersion}`);
      }
      const namespace = type.namespaced ? (doc.metadata.namespace ?? "default") : undefined;
      const base = group === "" ? `/api/${version}` : `/apis/${group}/${version}`;
      const scope = namespace === undefined ? "" : `/namespaces/${namespace}`;
      const path = `${base}${scope}/${type.plural}`;
      // Strict, as `kubectl create --validate=strict` is: a field the schema does not know is an
      // error here, not a warning the operator never reads.
      const response = await fetch(`${options.url}${path}?fieldValidation=Strict`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify(doc),
      });
      if (!response.ok) {
        const status = (await response.json()) as { message?: string };
        throw new Error(
          `${file}: ${doc.kind} ${doc.metadata.name} refused (${String(response.status)}): ${status.message ?? ""}`,
        );
      }
      applied.push({ kind: doc.kind, namespace, name: doc.metadata.name });
    }
  }
  return applied;
}
