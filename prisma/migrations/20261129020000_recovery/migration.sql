-- Recovery: rematerialization attempts, workspace archives, write admissions, and the admin
-- recovery actions. Same style as the lease: one function per transition, time as p_now.

CREATE TABLE "workspace_archives" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "workspace_id" UUID NOT NULL,
    "lease_id" UUID NOT NULL,
    "revision" TEXT NOT NULL,
    "generation" INTEGER NOT NULL,
    "size_bytes" BIGINT NOT NULL,
    "file_count" INTEGER NOT NULL,
    "storage_key" TEXT NOT NULL,
    "sha256" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'available',
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    CONSTRAINT "workspace_archives_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "workspace_archives_status_check" CHECK ("status" IN ('available', 'invalid'))
);
CREATE UNIQUE INDEX "workspace_archives_lease_id_revision_key" ON "workspace_archives"("lease_id", "revision");

CREATE TABLE "rematerializations" (
    "id" UUID NOT NULL,
    "workspace_id" UUID NOT NULL,
    "lease_id" UUID NOT NULL,
    "epoch" INTEGER NOT NULL,
    "selected_revision" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "failure_code" TEXT,
    "retryable" BOOLEAN,
    "started_at" TIMESTAMPTZ(3) NOT NULL,
    "completed_at" TIMESTAMPTZ(3),
    CONSTRAINT "rematerializations_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "rematerializations_status_check" CHECK ("status" IN ('restoring', 'verifying', 'ready', 'failed'))
);
CREATE INDEX "rematerializations_lease_id_idx" ON "rematerializations"("lease_id");

CREATE TABLE "mutation_admissions" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "workspace_id" UUID NOT NULL,
    "lease_id" UUID NOT NULL,
    "session_id" UUID NOT NULL,
    "generation" INTEGER NOT NULL,
    "epoch" INTEGER NOT NULL,
    "instance_id" TEXT NOT NULL,
    "holder_kind" TEXT NOT NULL,
    "holder_id" TEXT NOT NULL,
    "route_target_id" UUID,
    "route_epoch" INTEGER NOT NULL,
    "operation" TEXT NOT NULL,
    "outcome" TEXT,
    "admitted_at" TIMESTAMPTZ(3) NOT NULL,
    "settled_at" TIMESTAMPTZ(3),
    CONSTRAINT "mutation_admissions_pkey" PRIMARY KEY ("id"),
    -- NULL (in flight) passes a CHECK, so the set names only the settled outcomes.
    CONSTRAINT "mutation_admissions_outcome_check" CHECK ("outcome" IN ('resolved', 'rejected')),
    CONSTRAINT "mutation_admissions_settled_check" CHECK (("outcome" IS NULL) = ("settled_at" IS NULL))
);
CREATE UNIQUE INDEX "mutation_admissions_lease_id_generation_key" ON "mutation_admissions"("lease_id", "generation");
-- Capture asks "is any admission <= g unsettled?": only unsettled rows are indexed.
CREATE INDEX "mutation_admissions_unsettled_idx" ON "mutation_admissions"("lease_id", "generation") WHERE "settled_at" IS NULL;

ALTER TABLE "workspace_archives" ADD CONSTRAINT "workspace_archives_lease_id_fkey" FOREIGN KEY ("lease_id") REFERENCES "sandbox_leases"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "rematerializations" ADD CONSTRAINT "rematerializations_lease_id_fkey" FOREIGN KEY ("lease_id") REFERENCES "sandbox_leases"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "mutation_admissions" ADD CONSTRAINT "mutation_admissions_lease_id_fkey" FOREIGN KEY ("lease_id") REFERENCES "sandbox_leases"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- ---------------------------------------------------------------------------------------------
-- Rematerialization (spec §5.1, 5.3, 5.5): the spawner of a lease with an archive restores
-- exactly the selected revision into its new box, verified before the lease may go warm.

-- Begin: only the warming spawner, only from a complete archive. One attempt per epoch: the same
-- id is idempotent, another id is an attempt_conflict. An incomplete or unverified archive
-- ends the warming at once (no box exists yet): cold at epoch+1, restore degraded, not retryable.
CREATE FUNCTION berth_lease_begin_rematerialization(
  p_workspace_id uuid, p_lease_id uuid, p_expected_epoch integer, p_rematerialization_id uuid, p_now timestamptz)
RETURNS TABLE (outcome text, reason text, lease jsonb) LANGUAGE plpgsql AS $$
DECLARE
  v_before sandbox_leases;
  v_lease sandbox_leases;
  v_code text;
BEGIN
  SELECT * INTO v_before FROM sandbox_leases WHERE id = p_lease_id AND workspace_id = p_workspace_id FOR UPDATE;
  IF NOT FOUND THEN RETURN QUERY SELECT 'refused', 'lease_not_found', NULL::jsonb; RETURN; END IF;
  IF v_before.liveness <> 'warming' OR v_before.epoch <> p_expected_epoch THEN
    RETURN QUERY SELECT 'refused', 'stale_epoch', to_jsonb(v_before); RETURN;
  END IF;
  IF v_before.restore_status IN ('restoring', 'verifying') THEN
    RETURN QUERY SELECT CASE WHEN v_before.rematerialization_id = p_rematerialization_id THEN 'started' ELSE 'refused' END,
      CASE WHEN v_before.rematerialization_id = p_rematerialization_id THEN NULL ELSE 'attempt_conflict' END,
      to_jsonb(v_before);
    RETURN;
  END IF;
  IF v_before.archive_status = 'none' THEN
    RETURN QUERY SELECT 'refused', 'archive_unavailable', to_jsonb(v_before); RETURN;
  END IF;
  IF v_before.archive_status <> 'available' OR v_before.archive_generation IS DISTINCT FROM v_before.workspace_generation THEN
    v_code := CASE WHEN v_before.archive_status = 'available' THEN 'archive_generation_mismatch' ELSE 'archive_unverified' END;
    UPDATE sandbox_leases
       SET liveness = 'cold', epoch = epoch + 1, provider_status = 'not_created', restore_status = 'degraded',
           workspace_status = 'degraded', failure_code = v_code, retryable = false, expires_at = p_now
     WHERE id = p_lease_id RETURNING * INTO v_lease;
    PERFORM berth_lease_log(v_before, v_lease, 'restore_blocked', 'spawner', v_code, p_now);
    RETURN QUERY SELECT 'blocked', v_code, to_jsonb(v_lease);
    RETURN;
  END IF;
  UPDATE sandbox_leases
     SET restore_status = 'restoring', rematerialization_id = p_rematerialization_id,
         selected_revision = archive_revision, workspace_status = 'not_ready'
   WHERE id = p_lease_id RETURNING * INTO v_lease;
  INSERT INTO rematerializations (id, workspace_id, lease_id, epoch, selected_revision, status, started_at)
  VALUES (p_rematerialization_id, p_workspace_id, p_lease_id, v_lease.epoch, v_lease.selected_revision, 'restoring', p_now);
  PERFORM berth_lease_log(v_before, v_lease, 'restore_begin', 'spawner', NULL, p_now);
  RETURN QUERY SELECT 'started', NULL::text, to_jsonb(v_lease);
END $$;

-- The restored tree is in the box and names its revision: restoring -> verifying, only for the
-- current attempt and only if the revision is exactly the selected one.
CREATE FUNCTION berth_lease_mark_verifying(
  p_workspace_id uuid, p_lease_id uuid, p_expected_epoch integer, p_rematerialization_id uuid,
  p_revision text, p_now timestamptz)
RETURNS TABLE (outcome text, reason text, lease jsonb) LANGUAGE plpgsql AS $$
DECLARE
  v_before sandbox_leases;
  v_lease sandbox_leases;
BEGIN
  SELECT * INTO v_before FROM sandbox_leases WHERE id = p_lease_id AND workspace_id = p_workspace_id FOR UPDATE;
  IF NOT FOUND THEN RETURN QUERY SELECT 'refused', 'lease_not_found', NULL::jsonb; RETURN; END IF;
  IF v_before.liveness <> 'warming' OR v_before.epoch <> p_expected_epoch THEN
    RETURN QUERY SELECT 'refused', 'stale_epoch', to_jsonb(v_before); RETURN;
  END IF;
  IF v_before.restore_status <> 'restoring' OR v_before.rematerialization_id IS DISTINCT FROM p_rematerialization_id
     OR v_before.selected_revision IS DISTINCT FROM p_revision THEN
    RETURN QUERY SELECT 'refused', 'rematerialization_mismatch', to_jsonb(v_before); RETURN;
  END IF;
  UPDATE sandbox_leases SET restore_status = 'verifying' WHERE id = p_lease_id RETURNING * INTO v_lease;
  UPDATE rematerializations SET status = 'verifying' WHERE id = p_rematerialization_id;
  PERFORM berth_lease_log(v_before, v_lease, 'restore_verifying', 'spawner', NULL, p_now);
  RETURN QUERY SELECT 'verifying', NULL::text, to_jsonb(v_lease);
END $$;

-- The restore failed (the spawner already terminated its box): cold at epoch+1. Consecutive
-- failures at one selected revision are counted: retryable ones below 3 leave the lease degraded
-- and retryable (the next acquire elects one spawner to retry); the third, or any non-retryable
-- one, makes it unrecoverable.
CREATE FUNCTION berth_lease_fail_rematerialization(
  p_workspace_id uuid, p_lease_id uuid, p_expected_epoch integer, p_rematerialization_id uuid,
  p_failure_code text, p_retryable boolean, p_now timestamptz)
RETURNS TABLE (outcome text, reason text, lease jsonb) LANGUAGE plpgsql AS $$
DECLARE
  v_before sandbox_leases;
  v_lease sandbox_leases;
  v_retry boolean;
BEGIN
  SELECT * INTO v_before FROM sandbox_leases WHERE id = p_lease_id AND workspace_id = p_workspace_id FOR UPDATE;
  IF NOT FOUND THEN RETURN QUERY SELECT 'refused', 'lease_not_found', NULL::jsonb; RETURN; END IF;
  IF v_before.liveness <> 'warming' OR v_before.epoch <> p_expected_epoch THEN
    RETURN QUERY SELECT 'refused', 'stale_epoch', to_jsonb(v_before); RETURN;
  END IF;
  IF v_before.rematerialization_id IS DISTINCT FROM p_rematerialization_id THEN
    RETURN QUERY SELECT 'refused', 'rematerialization_mismatch', to_jsonb(v_before); RETURN;
  END IF;
  v_retry := p_retryable AND v_before.restore_attempts + 1 < 3;
  UPDATE sandbox_leases
     SET liveness = 'cold', epoch = epoch + 1, instance_id = NULL, allocation_id = NULL,
         rematerialization_id = NULL, provider_status = 'not_created',
         restore_attempts = restore_attempts + 1,
         restore_status = CASE WHEN v_retry THEN 'degraded' ELSE 'unrecoverable' END,
         workspace_status = CASE WHEN v_retry THEN 'degraded' ELSE 'unrecoverable' END,
         failure_code = left(p_failure_code, 96), retryable = v_retry, expires_at = p_now
   WHERE id = p_lease_id RETURNING * INTO v_lease;
  UPDATE rematerializations SET status = 'failed', failure_code = left(p_failure_code, 96),
         retryable = p_retryable, completed_at = p_now
   WHERE id = p_rematerialization_id;
  PERFORM berth_lease_log(v_before, v_lease, 'restore_failed', 'spawner', left(p_failure_code, 96), p_now);
  RETURN QUERY SELECT 'failed', NULL::text, to_jsonb(v_lease);
END $$;

-- ---------------------------------------------------------------------------------------------
-- Archives and write admissions (spec §5.9, I9, I10).

-- Publishes a verified capture of generation g of the live box. Allowed only when every write
-- admitted at or below g has settled (a capture cannot prove it holds a write still in flight).
CREATE FUNCTION berth_lease_publish_archive(
  p_workspace_id uuid, p_lease_id uuid, p_expected_epoch integer, p_instance_id text, p_generation integer,
  p_archive jsonb, p_actor text, p_now timestamptz)
RETURNS TABLE (outcome text, reason text, lease jsonb) LANGUAGE plpgsql AS $$
DECLARE
  v_before sandbox_leases;
  v_lease sandbox_leases;
BEGIN
  SELECT * INTO v_before FROM sandbox_leases WHERE id = p_lease_id AND workspace_id = p_workspace_id FOR UPDATE;
  IF NOT FOUND THEN RETURN QUERY SELECT 'refused', 'lease_not_found', NULL::jsonb; RETURN; END IF;
  IF v_before.liveness NOT IN ('warm', 'draining') OR v_before.epoch <> p_expected_epoch
     OR v_before.instance_id IS DISTINCT FROM p_instance_id THEN
    RETURN QUERY SELECT 'refused', 'stale_epoch', to_jsonb(v_before); RETURN;
  END IF;
  IF p_generation > v_before.workspace_generation OR p_generation < coalesce(v_before.archive_generation, 0) THEN
    RETURN QUERY SELECT 'refused', 'generation_mismatch', to_jsonb(v_before); RETURN;
  END IF;
  IF EXISTS (SELECT 1 FROM mutation_admissions WHERE lease_id = p_lease_id AND settled_at IS NULL AND generation <= p_generation) THEN
    RETURN QUERY SELECT 'refused', 'admissions_unsettled', to_jsonb(v_before); RETURN;
  END IF;
  INSERT INTO workspace_archives (workspace_id, lease_id, revision, generation, size_bytes, file_count, storage_key, sha256, created_at)
  VALUES (p_workspace_id, p_lease_id, p_archive->>'revision', p_generation, (p_archive->>'sizeBytes')::bigint,
          (p_archive->>'fileCount')::int, p_archive->>'storageKey', p_archive->>'sha256', p_now)
  ON CONFLICT (lease_id, revision) DO UPDATE SET generation = EXCLUDED.generation;
  UPDATE sandbox_leases SET archive_status = 'available', archive_generation = p_generation,
         archive_revision = p_archive->>'revision'
   WHERE id = p_lease_id RETURNING * INTO v_lease;
  PERFORM berth_lease_log(v_before, v_lease, 'publish_archive', p_actor, p_archive->>'revision', p_now);
  RETURN QUERY SELECT 'published', NULL::text, to_jsonb(v_lease);
END $$;

-- Admits one persistable write: the generation advances before the write reaches the box,
-- under the exact epoch + instance + holder fence and the session's route (active target and
-- activeEpoch). Lock order session -> lease. Answers the admission id and its generation.
CREATE FUNCTION berth_lease_admit_write(
  p_workspace_id uuid, p_lease_id uuid, p_session_id uuid, p_expected_epoch integer, p_instance_id text,
  p_holder_kind text, p_holder_id text, p_route_target_id uuid, p_route_epoch integer, p_operation text,
  p_now timestamptz)
RETURNS TABLE (outcome text, reason text, admission_id uuid, generation integer) LANGUAGE plpgsql AS $$
DECLARE
  v_session sessions;
  v_lease sandbox_leases;
  v_admission uuid;
BEGIN
  SELECT * INTO v_session FROM sessions WHERE id = p_session_id AND workspace_id = p_workspace_id FOR SHARE;
  IF NOT FOUND THEN RETURN QUERY SELECT 'refused', 'session_not_found', NULL::uuid, NULL::int; RETURN; END IF;
  IF v_session.active_sandbox_id IS DISTINCT FROM p_route_target_id OR v_session.active_epoch <> p_route_epoch THEN
    RETURN QUERY SELECT 'refused', 'route_fenced', NULL::uuid, NULL::int; RETURN;
  END IF;
  UPDATE sandbox_leases l SET workspace_generation = l.workspace_generation + 1
   WHERE l.id = p_lease_id AND l.workspace_id = p_workspace_id AND l.sandbox_group_id = v_session.sandbox_group_id
     AND l.liveness = 'warm' AND l.epoch = p_expected_epoch AND l.instance_id = p_instance_id
     AND l.workspace_generation < 2147483647
     AND EXISTS (SELECT 1 FROM lease_holders h WHERE h.lease_id = l.id AND h.kind = p_holder_kind
                    AND h.holder_id = p_holder_id AND h.subject_id = p_session_id)
  RETURNING l.* INTO v_lease;
  IF NOT FOUND THEN
    RETURN QUERY SELECT 'refused',
      CASE WHEN EXISTS (SELECT 1 FROM sandbox_leases WHERE id = p_lease_id AND liveness = 'warm'
                          AND epoch = p_expected_epoch AND instance_id = p_instance_id)
           THEN 'holder_fenced' ELSE 'lease_fenced' END,
      NULL::uuid, NULL::int;
    RETURN;
  END IF;
  INSERT INTO mutation_admissions (workspace_id, lease_id, session_id, generation, epoch, instance_id, holder_kind,
                                   holder_id, route_target_id, route_epoch, operation, admitted_at)
  VALUES (p_workspace_id, p_lease_id, p_session_id, v_lease.workspace_generation, p_expected_epoch, p_instance_id,
          p_holder_kind, p_holder_id, p_route_target_id, p_route_epoch, left(p_operation, 128), p_now)
  RETURNING id INTO v_admission;
  RETURN QUERY SELECT 'admitted', NULL::text, v_admission, v_lease.workspace_generation;
END $$;

-- Settles an admission once (resolved: the write happened; rejected: it did not). Capture
-- waits on unsettled admissions, so a write that fails must still be settled.
CREATE FUNCTION berth_lease_settle_admission(p_workspace_id uuid, p_admission_id uuid, p_outcome text, p_now timestamptz)
RETURNS text LANGUAGE plpgsql AS $$
BEGIN
  UPDATE mutation_admissions SET outcome = p_outcome, settled_at = p_now
   WHERE id = p_admission_id AND workspace_id = p_workspace_id AND settled_at IS NULL;
  IF FOUND THEN RETURN 'settled'; END IF;
  IF EXISTS (SELECT 1 FROM mutation_admissions WHERE id = p_admission_id AND workspace_id = p_workspace_id) THEN
    RETURN 'already_settled';
  END IF;
  RETURN 'not_found';
END $$;

-- ---------------------------------------------------------------------------------------------
-- Admin recovery actions: explicit, audited (one audit_events row and one lease_events row, in
-- the same transaction as the change).

-- Start fresh: only from a blocked lease. The workspace's content is given up: no archive, no
-- restore; generations stay monotonic and the audit row names the discarded range.
CREATE FUNCTION berth_lease_start_fresh(
  p_workspace_id uuid, p_lease_id uuid, p_expected_epoch integer, p_actor_kind text, p_actor_id text, p_now timestamptz)
RETURNS TABLE (outcome text, reason text, lease jsonb) LANGUAGE plpgsql AS $$
DECLARE
  v_before sandbox_leases;
  v_lease sandbox_leases;
BEGIN
  SELECT * INTO v_before FROM sandbox_leases WHERE id = p_lease_id AND workspace_id = p_workspace_id FOR UPDATE;
  IF NOT FOUND THEN RETURN QUERY SELECT 'refused', 'lease_not_found', NULL::jsonb; RETURN; END IF;
  IF v_before.epoch <> p_expected_epoch THEN RETURN QUERY SELECT 'refused', 'stale_epoch', to_jsonb(v_before); RETURN; END IF;
  IF v_before.liveness <> 'cold' OR v_before.restore_status NOT IN ('degraded', 'unrecoverable') THEN
    RETURN QUERY SELECT 'refused', 'not_blocked', to_jsonb(v_before); RETURN;
  END IF;
  UPDATE sandbox_leases
     SET epoch = epoch + 1, archive_status = 'none', archive_generation = NULL, archive_revision = NULL,
         selected_revision = NULL, rematerialization_id = NULL, restore_status = 'not_required',
         workspace_status = 'unknown', provider_status = 'not_created', failure_code = NULL, retryable = NULL,
         restore_attempts = 0
   WHERE id = p_lease_id RETURNING * INTO v_lease;
  INSERT INTO audit_events (workspace_id, actor_kind, actor_id, action, target_kind, target_id, before, after, at)
  VALUES (p_workspace_id, p_actor_kind, p_actor_id, 'lease.start_fresh', 'lease', p_lease_id::text,
          jsonb_build_object('epoch', v_before.epoch, 'restoreStatus', v_before.restore_status,
                             'archiveRevision', v_before.archive_revision, 'archiveGeneration', v_before.archive_generation,
                             'workspaceGeneration', v_before.workspace_generation),
          jsonb_build_object('epoch', v_lease.epoch, 'restoreStatus', v_lease.restore_status,
                             'discardedGenerations', CASE WHEN v_before.workspace_generation = 0 THEN NULL
                               ELSE jsonb_build_object('from', 1, 'to', v_before.workspace_generation) END),
          p_now);
  PERFORM berth_lease_log(v_before, v_lease, 'start_fresh', p_actor_kind || ':' || p_actor_id, NULL, p_now);
  RETURN QUERY SELECT 'started_fresh', NULL::text, to_jsonb(v_lease);
END $$;

-- Restore revision R: the live box (if any) was captured and stopped by the caller at this epoch
-- and instance. Goes cold at epoch+1 with R selected and published as current, and
-- workspace_generation+1 = archive_generation: R is complete, and every older write is fenced.
CREATE FUNCTION berth_lease_restore_revision(
  p_workspace_id uuid, p_lease_id uuid, p_expected_epoch integer, p_instance_id text, p_revision text,
  p_actor_kind text, p_actor_id text, p_now timestamptz)
RETURNS TABLE (outcome text, reason text, lease jsonb) LANGUAGE plpgsql AS $$
DECLARE
  v_before sandbox_leases;
  v_lease sandbox_leases;
BEGIN
  SELECT * INTO v_before FROM sandbox_leases WHERE id = p_lease_id AND workspace_id = p_workspace_id FOR UPDATE;
  IF NOT FOUND THEN RETURN QUERY SELECT 'refused', 'lease_not_found', NULL::jsonb; RETURN; END IF;
  IF v_before.epoch <> p_expected_epoch OR v_before.instance_id IS DISTINCT FROM p_instance_id THEN
    RETURN QUERY SELECT 'refused', 'stale_epoch', to_jsonb(v_before); RETURN;
  END IF;
  IF v_before.liveness = 'warming' THEN RETURN QUERY SELECT 'refused', 'spawn_in_progress', to_jsonb(v_before); RETURN; END IF;
  IF NOT EXISTS (SELECT 1 FROM workspace_archives WHERE lease_id = p_lease_id AND revision = p_revision AND status = 'available') THEN
    RETURN QUERY SELECT 'refused', 'revision_not_found', to_jsonb(v_before); RETURN;
  END IF;
  DELETE FROM lease_holders WHERE lease_id = p_lease_id AND kind = 'process';
  PERFORM berth_lease_recount(p_lease_id);
  UPDATE sandbox_leases
     SET liveness = 'cold', epoch = epoch + 1, instance_id = NULL, allocation_id = NULL, rematerialization_id = NULL,
         workspace_generation = workspace_generation + 1, archive_generation = workspace_generation + 1,
         archive_status = 'available', archive_revision = p_revision, selected_revision = p_revision,
         restore_status = 'pending', workspace_status = 'not_ready', provider_status = 'not_created',
         failure_code = NULL, retryable = NULL, restore_attempts = 0, drain_claim_id = NULL,
         drain_claim_expires_at = NULL, rotation_requested_at = NULL, expires_at = p_now
   WHERE id = p_lease_id RETURNING * INTO v_lease;
  INSERT INTO audit_events (workspace_id, actor_kind, actor_id, action, target_kind, target_id, before, after, at)
  VALUES (p_workspace_id, p_actor_kind, p_actor_id, 'lease.restore_revision', 'lease', p_lease_id::text,
          jsonb_build_object('epoch', v_before.epoch, 'liveness', v_before.liveness, 'archiveRevision', v_before.archive_revision,
                             'workspaceGeneration', v_before.workspace_generation),
          jsonb_build_object('epoch', v_lease.epoch, 'selectedRevision', p_revision,
                             'workspaceGeneration', v_lease.workspace_generation, 'archiveGeneration', v_lease.archive_generation),
          p_now);
  PERFORM berth_lease_log(v_before, v_lease, 'restore_revision', p_actor_kind || ':' || p_actor_id, p_revision, p_now);
  RETURN QUERY SELECT 'restored', NULL::text, to_jsonb(v_lease);
END $$;
