-- Enrolling machines (issue 39). An admin makes a one-time code; the machine's agent exchanges it
-- for a credential and from then on presents that credential. Codes and credentials are stored
-- only as hashes. A code is used once (used_at) and names the machine it enrolled; a machine may
-- hold several credentials over its life (rotation) of which the unrevoked ones are accepted.
-- machine_connections records which replica holds a machine's agent channel now (one row per
-- connected machine), so other replicas can tell it is online and where to relay.

CREATE TABLE "machine_enrollment_codes" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "workspace_id" UUID NOT NULL,
    "code_hash" TEXT NOT NULL,
    "created_by" TEXT NOT NULL,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "used_at" TIMESTAMPTZ(3),
    "machine_id" UUID,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "machine_enrollment_codes_pkey" PRIMARY KEY ("id"),
    -- A code names a machine only once it was used to enroll it.
    CONSTRAINT "machine_enrollment_codes_used_check" CHECK ("machine_id" IS NULL OR "used_at" IS NOT NULL)
);
CREATE UNIQUE INDEX "machine_enrollment_codes_code_hash_key" ON "machine_enrollment_codes"("code_hash");
CREATE INDEX "machine_enrollment_codes_workspace_id_idx" ON "machine_enrollment_codes"("workspace_id");
ALTER TABLE "machine_enrollment_codes" ADD CONSTRAINT "machine_enrollment_codes_workspace_id_fkey" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "machine_enrollment_codes" ADD CONSTRAINT "machine_enrollment_codes_machine_id_fkey" FOREIGN KEY ("machine_id") REFERENCES "machines"("id") ON DELETE SET NULL ON UPDATE CASCADE;

CREATE TABLE "machine_credentials" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "machine_id" UUID NOT NULL,
    "credential_hash" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "revoked_at" TIMESTAMPTZ(3),
    CONSTRAINT "machine_credentials_pkey" PRIMARY KEY ("id")
);
CREATE UNIQUE INDEX "machine_credentials_credential_hash_key" ON "machine_credentials"("credential_hash");
CREATE INDEX "machine_credentials_machine_id_idx" ON "machine_credentials"("machine_id");
ALTER TABLE "machine_credentials" ADD CONSTRAINT "machine_credentials_machine_id_fkey" FOREIGN KEY ("machine_id") REFERENCES "machines"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- The one credential each machine had moves to its own table.
INSERT INTO "machine_credentials" ("machine_id", "credential_hash", "created_at")
    SELECT "id", "credential_hash", "created_at" FROM "machines";
DROP INDEX "machines_credential_hash_key";
ALTER TABLE "machines" DROP COLUMN "credential_hash";
-- What the agent reported at its last connect, and when an admin revoked the machine (it is
-- then refused whatever credential it presents, and listed as revoked).
ALTER TABLE "machines" ADD COLUMN "boxd_version" TEXT NOT NULL DEFAULT '';
ALTER TABLE "machines" ADD COLUMN "revoked_at" TIMESTAMPTZ(3);

CREATE TABLE "machine_connections" (
    "machine_id" UUID NOT NULL,
    "replica_id" TEXT NOT NULL,
    "connected_at" TIMESTAMPTZ(3) NOT NULL,
    "last_heartbeat_at" TIMESTAMPTZ(3) NOT NULL,
    CONSTRAINT "machine_connections_pkey" PRIMARY KEY ("machine_id")
);
ALTER TABLE "machine_connections" ADD CONSTRAINT "machine_connections_machine_id_fkey" FOREIGN KEY ("machine_id") REFERENCES "machines"("id") ON DELETE CASCADE ON UPDATE CASCADE;
