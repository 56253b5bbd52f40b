-- Enrolled self-hosted machines: hot-swap targets a workspace's sessions can move onto. The
-- row is what Berth knows of a machine: what it reported (os, arch, a display), when it was
-- last heard from, and the hash of the credential it presents (never the credential itself).
-- Every session of the workspace lists every machine beside its group box (readMachines).
CREATE TABLE "machines" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "workspace_id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "os" TEXT NOT NULL,
    "arch" TEXT NOT NULL,
    "has_display" BOOLEAN NOT NULL DEFAULT false,
    "credential_hash" TEXT NOT NULL,
    "last_seen_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "machines_pkey" PRIMARY KEY ("id")
);
CREATE UNIQUE INDEX "machines_workspace_id_name_key" ON "machines"("workspace_id", "name");
CREATE UNIQUE INDEX "machines_credential_hash_key" ON "machines"("credential_hash");
ALTER TABLE "machines" ADD CONSTRAINT "machines_workspace_id_fkey" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;
