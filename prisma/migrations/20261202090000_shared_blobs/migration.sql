-- Archive blobs are content-addressed (blobs/sha256/<hex>) from issue 36 on: rows of the same
-- bytes, in any lease, share one blob, and a blob is deleted only when no usable row refers to
-- it. This index answers that question under the blob's lock.
CREATE INDEX "workspace_archives_storage_key_idx" ON "workspace_archives"("storage_key");
