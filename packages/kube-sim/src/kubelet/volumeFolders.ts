/**
 * Where volumes live: each PersistentVolumeClaim is a folder under the data dir that exists
 * until the claim is deleted (keyed by uid, so a re-created claim starts empty); emptyDir volumes
 * are folders of the pod's own.
 */
import { mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";

export class VolumeFolders {
  constructor(private readonly dataDir: string) {}

  claim(namespace: string, name: string, uid: string): string {
    const folder = join(this.dataDir, "volumes", namespace, `${name}-${uid}`);
    mkdirSync(folder, { recursive: true });
    return folder;
  }

  removeClaim(namespace: string, name: string, uid: string): void {
    rmSync(join(this.dataDir, "volumes", namespace, `${name}-${uid}`), {
      recursive: true,
      force: true,
    });
  }

  /** A folder of the pod's own (its HOME and emptyDir volumes), removed with the pod. */
  podFolder(uid: string, ...parts: string[]): string {
    const folder = join(this.dataDir, "pods", uid, ...parts);
    mkdirSync(folder, { recursive: true });
    return folder;
  }

  removePod(uid: string): void {
    rmSync(join(this.dataDir, "pods", uid), { recursive: true, force: true });
  }
}
