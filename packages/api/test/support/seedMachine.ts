import type { DbClient } from "@berth/db";
import { machineCredentialHash, newMachineCredential } from "@berth/sandbox";

/** A workspace with one enrolled machine and its credential, as enrollment leaves them. */
export async function seedMachine(db: DbClient) {
  const workspace = await db.workspace.create({
    data: { slug: `ws-${crypto.randomUUID()}`, name: "Workspace" },
  });
  const machine = await db.machine.create({
    data: { workspaceId: workspace.id, name: "laptop", os: "", arch: "" },
  });
  const credential = newMachineCredential();
  await db.machineCredential.create({
    data: { machineId: machine.id, credentialHash: machineCredentialHash(credential) },
  });
  return { machineId: machine.id, workspaceId: workspace.id, credential };
}
