-- A transfer that breaks ends in `failed` instead of freezing where it stood (issue 33): a
-- capture or restore that fails in its process records it, and the worker's sweep records it
-- for a capture whose process died mid-write (it finds the capture's pending blob with a dead
-- writer). The bytes stay as they were: how far it got.
ALTER TABLE "archive_progress" DROP CONSTRAINT "archive_progress_phase_check";
ALTER TABLE "archive_progress" ADD CONSTRAINT "archive_progress_phase_check"
  CHECK ("phase" IN ('capturing', 'checking', 'hydrating', 'failed'));

-- Which transfer the row shows now. The row is overwritten by every transfer of the lease, so a
-- sweep fails the dead capture's progress only while the row is still that capture's: its pending
-- blob is tagged with the same id, and the update compares it. Rows from before have an id no
-- blob names.
ALTER TABLE "archive_progress" ADD COLUMN "transfer_id" UUID NOT NULL DEFAULT gen_random_uuid();
