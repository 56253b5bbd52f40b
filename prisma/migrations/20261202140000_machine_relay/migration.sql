-- Reaching a machine from every replica (issue 40). Each connect of a machine's agent gets the
-- next connection epoch (machines.connection_epoch counts them, never going back even when the
-- connection row goes); machine_connections records it with the address of the replica holding
-- the channel (BERTH_REPLICA_URL; null: that replica cannot be relayed to). A relay carries the
-- epoch it read, and the holder refuses one that is not its channel's.
ALTER TABLE "machines" ADD COLUMN "connection_epoch" INTEGER NOT NULL DEFAULT 0;
ALTER TABLE "machine_connections" ADD COLUMN "connection_epoch" INTEGER NOT NULL DEFAULT 0;
ALTER TABLE "machine_connections" ADD COLUMN "replica_url" TEXT;
