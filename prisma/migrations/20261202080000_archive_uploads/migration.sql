-- The S3 archive store's pending uploads (issue 36). Each capture into a bucket is recorded
-- here before any of its bytes leave (its upload id once S3 has given one), with the process
-- that owns it, and removed once the capture is committed or discarded. A row left by an owner
-- that died is how the worker's sweep finds the upload to abort and the temporary object to
-- delete: S3 itself cannot tell a dead capture's upload from a slow one's.

CREATE TABLE "archive_uploads" (
    "id" UUID NOT NULL,
    "bucket" TEXT NOT NULL,
    "object_key" TEXT NOT NULL,
    "upload_id" TEXT,
    "owner" JSONB NOT NULL,
    "lease_id" UUID,
    "transfer_id" UUID,
    "started_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "heartbeat_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "archive_uploads_pkey" PRIMARY KEY ("id")
);
