/**
 * Secret volumes (`volumes[].secret`) as the kubelet's secret plugin sets them up: which files the
 * Secret gives (`MakePayload` in pkg/volume/secret/secret.go) and writing them into the volume's
 * folder. The real plugin swaps a `..data` symlink to update atomically; here each file is
 * replaced by a rename, which is atomic per file.
 */
import { chmodSync, mkdirSync, readdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { dirname, isAbsolute, join, relative } from "node:path";
import { list, record, str } from "../controller/fields.ts";
import type { KubeObject } from "../objects.ts";
import { secretData } from "../secretStrategy.ts";

/** `SecretVolumeSourceDefaultMode`: what `SetDefaults_SecretVolumeSource` fills in (0644). */
export const DEFAULT_SECRET_MODE = 0o644;

/** A `volumes[].secret` with its defaults applied. */
export interface SecretVolumeSource {
  secretName: string;
  /** `items`: only these keys, each at its own path (and mode); undefined projects every key. */
  items: { key: string; path: string; mode: number | undefined }[] | undefined;
  defaultMode: number;
  optional: boolean;
}

export interface ProjectedFile {
  /** Relative to the volume's folder. */
  path: string;
  data: Buffer;
  mode: number;
}

export type SecretPayload =
  | { kind: "files"; files: ProjectedFile[] }
  /** `message` is the error the plugin's SetUp returns, as the FailedMount event shows it. */
  | { kind: "failed"; message: string };

export function secretVolumeSource(volume: KubeObject): SecretVolumeSource | undefined {
  if (volume.secret === undefined) return undefined;
  const source = record(volume.secret);
  const mode = (value: unknown): number | undefined =>
    typeof value === "number" && Number.isInteger(value) ? value : undefined;
  const items = list(source.items).map((item) => ({
    key: str(item.key) ?? "",
    path: str(item.path) ?? "",
    mode: mode(item.mode),
  }));
  return {
    secretName: str(source.secretName) ?? "",
    items: items.length > 0 ? items : undefined,
    defaultMode: mode(source.defaultMode) ?? DEFAULT_SECRET_MODE,
    optional: source.optional === true,
  };
}

/**
 * The files of a secret volume. A missing Secret fails unless `optional` (then the volume is
 * empty); with `items`, a missing key fails unless `optional` (then it is skipped).
 */
export function secretPayload(
  source: SecretVolumeSource,
  secret: KubeObject | undefined,
): SecretPayload {
  if (secret === undefined) {
    return source.optional
      ? { kind: "files", files: [] }
      : { kind: "failed", message: `secret "${source.secretName}" not found` };
  }
  const data = secretData(secret);
  if (source.items === undefined) {
    const files = [...data].map(([key, bytes]) => ({
      path: key,
      data: bytes,
      mode: source.defaultMode,
    }));
    return { kind: "files", files };
  }
  const files: ProjectedFile[] = [];
  for (const item of source.items) {
    const bytes = data.get(item.key);
    if (bytes === undefined) {
      if (source.optional) continue;
      return { kind: "failed", message: `references non-existent secret key: ${item.key}` };
    }
    files.push({ path: item.path, data: bytes, mode: item.mode ?? source.defaultMode });
  }
  return { kind: "files", files };
}

/** Whether `path` stays inside the folder (the API server refuses pods whose item paths do not). */
function inside(folder: string, path: string): boolean {
  const rel = relative(folder, join(folder, path));
  return path !== "" && !isAbsolute(path) && rel !== "" && !rel.startsWith("..");
}

/** Writes the payload into `folder` and removes files an earlier payload left that this one lacks. */
export function writeProjection(folder: string, files: readonly ProjectedFile[]): void {
  mkdirSync(folder, { recursive: true });
  const wanted = new Set<string>();
  for (const file of files) {
    // kube-sim does not validate pods, so an item path leaving the volume is simply not written.
    if (!inside(folder, file.path)) continue;
    const target = join(folder, file.path);
    wanted.add(target);
    mkdirSync(dirname(target), { recursive: true });
    const staged = join(dirname(target), `..kube-sim-${process.pid.toString()}.tmp`);
    writeFileSync(staged, file.data);
    // chmod after writing: the mode must not depend on the umask.
    chmodSync(staged, file.mode);
    renameSync(staged, target);
  }
  for (const entry of readdirSync(folder, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    if (!wanted.has(path)) rmSync(path, { force: true });
  }
}
