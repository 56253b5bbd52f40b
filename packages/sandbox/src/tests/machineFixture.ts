import type { DbClient } from "@berth/db";
import {
  machineCredentialHash,
  newMachineCredential,
  type ConnectingMachine,
} from "../machines/index.ts";

/** A workspace with one enrolled machine and its credential, as enrollment leaves them. */
export async function seedMachine(
  db: DbClient,
): Promise<ConnectingMachine & { credential: string }> {
  const workspace = await db.workspace.create({
    data: { slug: `ws-${crypto.randomUUID()}`, name: "Workspace" },
  });
  const machine = await db.machine.create({
    data: { workspaceId: workspace.id, name: "laptop", os: "", arch: "" },
  });
  const credential = newMachineCredential();
  const credentialHash = machineCredentialHash(credential);
  await db.machineCredential.create({ data: { machineId: machine.id, credentialHash } });
  return { machineId: machine.id, workspaceId: workspace.id, credentialHash, credential };
}
