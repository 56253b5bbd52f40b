-- The lease: one row per (workspace, sandbox group), its holders, its event log, and the audit log.
-- Every transition is one PL/pgSQL function below (one round trip), taking the time as p_now:
-- no lease function calls now() itself, so tests drive time and replicas share the caller's clock.

CREATE TABLE "sandbox_leases" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "workspace_id" UUID NOT NULL,
    "sandbox_group_id" UUID NOT NULL,
    "liveness" TEXT NOT NULL DEFAULT 'cold',
    "epoch" INTEGER NOT NULL DEFAULT 0,
    "holder_count" INTEGER NOT NULL DEFAULT 0,
    "turn_holders" INTEGER NOT NULL DEFAULT 0,
    "viewer_holders" INTEGER NOT NULL DEFAULT 0,
    "instance_id" TEXT,
    "backend" TEXT NOT NULL,
    "execution_profile" TEXT,
    "allocation_id" TEXT,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "workspace_generation" INTEGER NOT NULL DEFAULT 0,
    "archive_generation" INTEGER,
    "provider_status" TEXT NOT NULL DEFAULT 'not_created',
    "archive_status" TEXT NOT NULL DEFAULT 'none',
    "restore_status" TEXT NOT NULL DEFAULT 'not_required',
    "workspace_status" TEXT NOT NULL DEFAULT 'unknown',
    "selected_revision" TEXT,
    "archive_revision" TEXT,
    "rematerialization_id" UUID,
    "failure_code" TEXT,
    "retryable" BOOLEAN,
    "restore_attempts" INTEGER NOT NULL DEFAULT 0,
    "rotation_requested_at" TIMESTAMPTZ(3),
    "drain_claim_id" UUID,
    "drain_claim_expires_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "sandbox_leases_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "sandbox_leases_liveness_check" CHECK ("liveness" IN ('cold', 'warming', 'warm', 'draining')),
    CONSTRAINT "sandbox_leases_backend_check" CHECK ("backend" IN ('local', 'kubernetes')),
    CONSTRAINT "sandbox_leases_provider_status_check" CHECK ("provider_status" IN ('not_created', 'creating', 'exists', 'missing', 'unknown')),
    CONSTRAINT "sandbox_leases_archive_status_check" CHECK ("archive_status" IN ('none', 'available', 'unverified', 'invalid')),
    CONSTRAINT "sandbox_leases_restore_status_check" CHECK ("restore_status" IN ('not_required', 'pending', 'restoring', 'verifying', 'ready', 'degraded', 'unrecoverable')),
    CONSTRAINT "sandbox_leases_workspace_status_check" CHECK ("workspace_status" IN ('unknown', 'not_ready', 'ready', 'degraded', 'unrecoverable')),
    CONSTRAINT "sandbox_leases_counts_check" CHECK ("holder_count" >= 0 AND "turn_holders" >= 0 AND "viewer_holders" >= 0 AND "turn_holders" + "viewer_holders" <= "holder_count"),
    CONSTRAINT "sandbox_leases_generations_check" CHECK ("workspace_generation" >= 0 AND ("archive_generation" IS NULL OR "archive_generation" BETWEEN 0 AND "workspace_generation")),
    CONSTRAINT "sandbox_leases_restore_attempts_check" CHECK ("restore_attempts" >= 0)
);
CREATE UNIQUE INDEX "sandbox_leases_workspace_id_sandbox_group_id_key" ON "sandbox_leases"("workspace_id", "sandbox_group_id");
-- The reaper scans only leases that can expire.
CREATE INDEX "sandbox_leases_reaper_idx" ON "sandbox_leases"("expires_at") WHERE "liveness" IN ('warming', 'warm', 'draining');

CREATE TABLE "lease_holders" (
    "lease_id" UUID NOT NULL,
    "kind" TEXT NOT NULL,
    "holder_id" TEXT NOT NULL,
    "subject_id" UUID NOT NULL,
    "last_heartbeat_at" TIMESTAMPTZ(3) NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    -- One row per (lease, kind, holder): makes acquire idempotent. No other index, so a
    -- heartbeat (which changes only last_heartbeat_at) is a HOT update.
    CONSTRAINT "lease_holders_pkey" PRIMARY KEY ("lease_id", "kind", "holder_id"),
    CONSTRAINT "lease_holders_kind_check" CHECK ("kind" IN ('turn', 'viewer', 'direct', 'process'))
);

CREATE TABLE "lease_events" (
    "id" BIGSERIAL NOT NULL,
    "lease_id" UUID NOT NULL,
    "workspace_id" UUID NOT NULL,
    "transition" TEXT NOT NULL,
    "from_state" TEXT,
    "to_state" TEXT NOT NULL,
    "epoch_before" INTEGER,
    "epoch_after" INTEGER NOT NULL,
    "actor" TEXT NOT NULL,
    "reason" TEXT,
    "details" JSONB,
    "at" TIMESTAMPTZ(3) NOT NULL,
    CONSTRAINT "lease_events_pkey" PRIMARY KEY ("id")
);
CREATE INDEX "lease_events_lease_id_id_idx" ON "lease_events"("lease_id", "id");
CREATE INDEX "lease_events_workspace_id_id_idx" ON "lease_events"("workspace_id", "id");

CREATE TABLE "audit_events" (
    "id" BIGSERIAL NOT NULL,
    "workspace_id" UUID NOT NULL,
    "actor_kind" TEXT NOT NULL,
    "actor_id" TEXT NOT NULL,
    "action" TEXT NOT NULL,
    "target_kind" TEXT NOT NULL,
    "target_id" TEXT NOT NULL,
    "before" JSONB,
    "after" JSONB,
    "at" TIMESTAMPTZ(3) NOT NULL,
    CONSTRAINT "audit_events_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "audit_events_actor_kind_check" CHECK ("actor_kind" IN ('user', 'token', 'system'))
);
CREATE INDEX "audit_events_workspace_id_id_idx" ON "audit_events"("workspace_id", "id");

ALTER TABLE "sandbox_leases" ADD CONSTRAINT "sandbox_leases_workspace_id_fkey" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "lease_holders" ADD CONSTRAINT "lease_holders_lease_id_fkey" FOREIGN KEY ("lease_id") REFERENCES "sandbox_leases"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "lease_events" ADD CONSTRAINT "lease_events_lease_id_fkey" FOREIGN KEY ("lease_id") REFERENCES "sandbox_leases"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "audit_events" ADD CONSTRAINT "audit_events_workspace_id_fkey" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- ---------------------------------------------------------------------------------------------
-- Helpers. Every transition function answers (outcome, reason, lease): the outcome names what
-- happened (or which fence refused it), the lease is the row after the call as jsonb.

-- Milliseconds as an interval; TTLs arrive as integers from TypeScript.
CREATE FUNCTION berth_ms(p_ms integer) RETURNS interval
LANGUAGE sql IMMUTABLE AS $$ SELECT p_ms * interval '1 millisecond' $$;

-- I4: holder counts are caches, recomputed from holder rows on every change; never decremented blind.
CREATE FUNCTION berth_lease_recount(p_lease_id uuid) RETURNS sandbox_leases
LANGUAGE plpgsql AS $$
DECLARE
  v_lease sandbox_leases;
BEGIN
  UPDATE sandbox_leases l
     SET holder_count = c.total, turn_holders = c.turns, viewer_holders = c.viewers
    FROM (SELECT count(*)::int AS total,
                 count(*) FILTER (WHERE kind = 'turn')::int AS turns,
                 count(*) FILTER (WHERE kind = 'viewer')::int AS viewers
            FROM lease_holders WHERE lease_id = p_lease_id) c
   WHERE l.id = p_lease_id
  RETURNING l.* INTO v_lease;
  RETURN v_lease;
END $$;

-- Idempotent holder registration: a repeat refreshes the heartbeat and nothing else.
-- Answers whether a row was inserted (xmax = 0 only for a fresh insert), so the caller adjusts
-- the counts by exactly what changed.
CREATE FUNCTION berth_lease_upsert_holder(p_lease_id uuid, p_kind text, p_holder_id text, p_subject_id uuid, p_now timestamptz)
RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE
  v_inserted boolean;
BEGIN
  INSERT INTO lease_holders (lease_id, kind, holder_id, subject_id, last_heartbeat_at, created_at)
  VALUES (p_lease_id, p_kind, p_holder_id, p_subject_id, p_now, p_now)
  ON CONFLICT (lease_id, kind, holder_id) DO UPDATE SET last_heartbeat_at = EXCLUDED.last_heartbeat_at
  RETURNING (xmax = 0) INTO v_inserted;
  RETURN v_inserted;
END $$;

-- The counts after one holder row of p_kind was inserted (+1) or deleted (-1), in the same
-- transaction and under the lease row lock: the counts move only with a row that moved, so they
-- always equal the rows (I4) without re-counting rows that churn on the hot path. Sweeps and
-- bulk changes use berth_lease_recount instead.
CREATE FUNCTION berth_lease_count_delta(p_lease_id uuid, p_kind text, p_delta integer) RETURNS sandbox_leases
LANGUAGE plpgsql AS $$
DECLARE
  v_lease sandbox_leases;
BEGIN
  UPDATE sandbox_leases
     SET holder_count = holder_count + p_delta,
         turn_holders = turn_holders + CASE WHEN p_kind = 'turn' THEN p_delta ELSE 0 END,
         viewer_holders = viewer_holders + CASE WHEN p_kind = 'viewer' THEN p_delta ELSE 0 END
   WHERE id = p_lease_id
  RETURNING * INTO v_lease;
  RETURN v_lease;
END $$;

-- One event per accepted change of liveness, epoch, recovery status, selected revision or archive.
CREATE FUNCTION berth_lease_log(p_before sandbox_leases, p_after sandbox_leases, p_transition text, p_actor text, p_reason text, p_now timestamptz)
RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO lease_events (lease_id, workspace_id, transition, from_state, to_state, epoch_before, epoch_after, actor, reason, details, at)
  VALUES (p_after.id, p_after.workspace_id, p_transition, p_before.liveness, p_after.liveness,
          p_before.epoch, p_after.epoch, p_actor, p_reason,
          jsonb_strip_nulls(jsonb_build_object(
            'restoreStatus', CASE WHEN p_before.restore_status IS DISTINCT FROM p_after.restore_status THEN p_after.restore_status END,
            'providerStatus', CASE WHEN p_before.provider_status IS DISTINCT FROM p_after.provider_status THEN p_after.provider_status END,
            'selectedRevision', CASE WHEN p_before.selected_revision IS DISTINCT FROM p_after.selected_revision THEN p_after.selected_revision END,
            'instanceId', CASE WHEN p_before.instance_id IS DISTINCT FROM p_after.instance_id THEN p_after.instance_id END)),
          p_now);
END $$;

-- ---------------------------------------------------------------------------------------------
-- Acquire (spec §4.3): one arrival, one transaction. The group comes from the session row, so a
-- caller cannot name a group its session does not belong to. Roles: spawner | attached | rearmed |
-- fenced | blocked; errors: session_not_found | profile_conflict | process_not_acquirable.
CREATE FUNCTION berth_lease_acquire(
  p_workspace_id uuid, p_session_id uuid, p_kind text, p_holder_id text, p_profile text,
  p_lease_ttl_ms integer, p_warming_ttl_ms integer, p_expected_epoch integer, p_now timestamptz)
RETURNS TABLE (outcome text, reason text, lease jsonb) LANGUAGE plpgsql AS $$
DECLARE
  v_session sessions;
  v_lease sandbox_leases;
  v_before sandbox_leases;
  v_actor text := p_kind || ':' || p_holder_id;
BEGIN
  IF p_kind = 'process' THEN
    RETURN QUERY SELECT 'error', 'process_not_acquirable', NULL::jsonb; RETURN;
  END IF;
  SELECT * INTO v_session FROM sessions WHERE id = p_session_id AND workspace_id = p_workspace_id;
  IF NOT FOUND THEN
    RETURN QUERY SELECT 'error', 'session_not_found', NULL::jsonb; RETURN;
  END IF;

  -- Blocking FOR UPDATE, never SKIP LOCKED: every arrival must see the row (spec §13 scenario 4).
  -- The common case finds the row; only the first arrival of a group inserts it.
  SELECT * INTO v_lease FROM sandbox_leases
   WHERE workspace_id = p_workspace_id AND sandbox_group_id = v_session.sandbox_group_id FOR UPDATE;
  IF NOT FOUND THEN
    INSERT INTO sandbox_leases (workspace_id, sandbox_group_id, backend, execution_profile, expires_at)
    VALUES (p_workspace_id, v_session.sandbox_group_id, v_session.backend, p_profile, p_now + berth_ms(p_lease_ttl_ms))
    ON CONFLICT (workspace_id, sandbox_group_id) DO NOTHING
    RETURNING * INTO v_lease;
    IF FOUND THEN
      PERFORM berth_lease_log(NULL, v_lease, 'created', v_actor, NULL, p_now);
    END IF;
    SELECT * INTO v_lease FROM sandbox_leases
     WHERE workspace_id = p_workspace_id AND sandbox_group_id = v_session.sandbox_group_id FOR UPDATE;
  END IF;
  v_before := v_lease;

  -- A drain past its grace, or a rotation, belongs to the reaper now: the caller retries later.
  IF v_lease.liveness = 'draining' AND v_lease.expires_at <= p_now THEN
    RETURN QUERY SELECT 'fenced',
      CASE WHEN v_lease.rotation_requested_at IS NULL THEN 'drain_in_progress' ELSE 'rotation_in_progress' END,
      to_jsonb(v_lease);
    RETURN;
  END IF;
  IF v_lease.rotation_requested_at IS NOT NULL AND v_lease.liveness <> 'cold' THEN
    RETURN QUERY SELECT 'fenced', 'rotation_in_progress', to_jsonb(v_lease); RETURN;
  END IF;

  -- A different execution profile on a live box: refused while others hold it, else rotated
  -- (captured and stopped first: never two boxes). Null never conflicts.
  IF v_lease.liveness <> 'cold' AND p_profile IS NOT NULL AND v_lease.execution_profile IS NOT NULL
     AND p_profile <> v_lease.execution_profile THEN
    IF EXISTS (SELECT 1 FROM lease_holders WHERE lease_id = v_lease.id
                AND NOT (kind = p_kind AND holder_id = p_holder_id)) THEN
      RETURN QUERY SELECT 'error', 'profile_conflict', to_jsonb(v_lease); RETURN;
    END IF;
    RETURN QUERY SELECT * FROM berth_lease_request_rotation(v_lease, v_actor, p_now); RETURN;
  END IF;

  CASE v_lease.liveness
  WHEN 'draining' THEN
    -- T12: an arrival within the idle grace re-arms the same box; epoch unchanged.
    IF berth_lease_upsert_holder(v_lease.id, p_kind, p_holder_id, p_session_id, p_now) THEN
      PERFORM berth_lease_count_delta(v_lease.id, p_kind, 1);
    END IF;
    UPDATE sandbox_leases SET liveness = 'warm', expires_at = p_now + berth_ms(p_lease_ttl_ms)
     WHERE id = v_lease.id RETURNING * INTO v_lease;
    PERFORM berth_lease_log(v_before, v_lease, 'rearm', v_actor, NULL, p_now);
    RETURN QUERY SELECT 'rearmed', NULL::text, to_jsonb(v_lease);
  WHEN 'cold' THEN
    -- T3: a cold lease whose restore cannot proceed blocks; no holder is registered.
    IF v_lease.restore_status = 'unrecoverable'
       OR (v_lease.restore_status = 'degraded' AND NOT (coalesce(v_lease.retryable, false) AND v_lease.restore_attempts < 3)) THEN
      RETURN QUERY SELECT 'blocked',
        CASE v_lease.restore_status WHEN 'unrecoverable' THEN 'restore_unrecoverable' ELSE 'restore_degraded' END,
        to_jsonb(v_lease);
      RETURN;
    END IF;
    -- T2: this arrival won cold -> warming and alone may create a box for this epoch.
    IF berth_lease_upsert_holder(v_lease.id, p_kind, p_holder_id, p_session_id, p_now) THEN
      PERFORM berth_lease_count_delta(v_lease.id, p_kind, 1);
    END IF;
    UPDATE sandbox_leases
       SET liveness = 'warming', execution_profile = coalesce(p_profile, execution_profile),
           provider_status = 'creating', expires_at = p_now + berth_ms(p_warming_ttl_ms)
     WHERE id = v_lease.id AND liveness = 'cold' RETURNING * INTO v_lease;
    PERFORM berth_lease_log(v_before, v_lease, 'spawn', v_actor, NULL, p_now);
    RETURN QUERY SELECT 'spawner', NULL::text, to_jsonb(v_lease);
  ELSE
    -- A re-dispatched turn that expected an older box must not attach to a newer one.
    IF v_lease.liveness = 'warm' AND p_kind = 'turn' AND p_expected_epoch IS NOT NULL
       AND p_expected_epoch <> v_lease.epoch THEN
      RETURN QUERY SELECT 'fenced', 'superseded', to_jsonb(v_lease); RETURN;
    END IF;
    -- Attach writes the holder and the counts only. It never moves a warming lease's deadline
    -- (the spawner's budget neither shrinks nor grows), and a warm lease is never expired by
    -- time, so its expires_at is left alone too: the count update stays a HOT update.
    IF berth_lease_upsert_holder(v_lease.id, p_kind, p_holder_id, p_session_id, p_now) THEN
      v_lease := berth_lease_count_delta(v_lease.id, p_kind, 1);
    END IF;
    RETURN QUERY SELECT 'attached', NULL::text, to_jsonb(v_lease);
  END CASE;
END $$;

-- Rotation (issue: execution profile change with no other holder): the old box is captured and
-- stopped before a new one is created. Warm/draining become immediately drainable; warming is
-- expired so the reaper resolves it. The caller's own holder goes: it must arrive again.
CREATE FUNCTION berth_lease_request_rotation(p_lease sandbox_leases, p_actor text, p_now timestamptz)
RETURNS TABLE (outcome text, reason text, lease jsonb) LANGUAGE plpgsql AS $$
DECLARE
  v_lease sandbox_leases;
BEGIN
  DELETE FROM lease_holders WHERE lease_id = p_lease.id AND kind <> 'process';
  PERFORM berth_lease_recount(p_lease.id);
  UPDATE sandbox_leases
     SET rotation_requested_at = p_now,
         liveness = CASE WHEN liveness = 'warm' THEN 'draining' ELSE liveness END,
         expires_at = LEAST(expires_at, p_now)
   WHERE id = p_lease.id RETURNING * INTO v_lease;
  PERFORM berth_lease_log(p_lease, v_lease, 'rotate', p_actor, 'rotation_in_progress', p_now);
  RETURN QUERY SELECT 'fenced', 'rotation_in_progress', to_jsonb(v_lease);
END $$;

-- ---------------------------------------------------------------------------------------------
-- Heartbeat: epoch-fenced. A stale epoch changes nothing (not even the holder's timestamp).
-- Lock order lease -> holder, as in acquire and release, so the two never deadlock.
CREATE FUNCTION berth_lease_heartbeat(
  p_workspace_id uuid, p_lease_id uuid, p_kind text, p_holder_id text,
  p_expected_epoch integer, p_lease_ttl_ms integer, p_now timestamptz)
RETURNS TABLE (outcome text, reason text, lease jsonb) LANGUAGE plpgsql AS $$
DECLARE
  v_lease sandbox_leases;
BEGIN
  SELECT * INTO v_lease FROM sandbox_leases WHERE id = p_lease_id AND workspace_id = p_workspace_id FOR UPDATE;
  IF NOT FOUND THEN RETURN QUERY SELECT 'dead', 'lease_not_found', NULL::jsonb; RETURN; END IF;
  IF v_lease.epoch <> p_expected_epoch THEN RETURN QUERY SELECT 'dead', 'stale_epoch', to_jsonb(v_lease); RETURN; END IF;
  UPDATE lease_holders SET last_heartbeat_at = p_now
   WHERE lease_id = p_lease_id AND kind = p_kind AND holder_id = p_holder_id;
  IF NOT FOUND THEN RETURN QUERY SELECT 'dead', 'holder_gone', to_jsonb(v_lease); RETURN; END IF;
  IF v_lease.liveness = 'warm' THEN
    UPDATE sandbox_leases SET expires_at = p_now + berth_ms(p_lease_ttl_ms) WHERE id = p_lease_id RETURNING * INTO v_lease;
  END IF;
  RETURN QUERY SELECT 'alive', NULL::text, to_jsonb(v_lease);
END $$;

-- Touch: refresh the holder only (a warmup keeps its holder alive without an epoch).
CREATE FUNCTION berth_lease_touch(p_workspace_id uuid, p_lease_id uuid, p_kind text, p_holder_id text, p_now timestamptz)
RETURNS boolean LANGUAGE sql AS $$
  WITH touched AS (
    UPDATE lease_holders h SET last_heartbeat_at = p_now
      FROM sandbox_leases l
     WHERE h.lease_id = l.id AND l.id = p_lease_id AND l.workspace_id = p_workspace_id
       AND h.kind = p_kind AND h.holder_id = p_holder_id
    RETURNING 1)
  SELECT EXISTS (SELECT 1 FROM touched)
$$;

-- Release: delete the caller's row (idempotent), recount, and the last holder of a warm lease
-- starts the idle grace (T11). During warming only the counts change: the spawner still commits.
CREATE FUNCTION berth_lease_release(
  p_workspace_id uuid, p_lease_id uuid, p_kind text, p_holder_id text, p_idle_grace_ms integer, p_now timestamptz)
RETURNS TABLE (outcome text, reason text, lease jsonb) LANGUAGE plpgsql AS $$
DECLARE
  v_lease sandbox_leases;
  v_before sandbox_leases;
  v_deleted boolean;
BEGIN
  IF p_kind = 'process' THEN RETURN QUERY SELECT 'error', 'process_not_releasable', NULL::jsonb; RETURN; END IF;
  SELECT * INTO v_before FROM sandbox_leases WHERE id = p_lease_id AND workspace_id = p_workspace_id FOR UPDATE;
  IF NOT FOUND THEN RETURN QUERY SELECT 'released', 'lease_not_found', NULL::jsonb; RETURN; END IF;
  DELETE FROM lease_holders WHERE lease_id = p_lease_id AND kind = p_kind AND holder_id = p_holder_id;
  v_deleted := FOUND;
  v_lease := v_before;
  IF v_deleted THEN
    v_lease := berth_lease_count_delta(p_lease_id, p_kind, -1);
  END IF;
  IF v_lease.liveness = 'warm' AND v_lease.holder_count = 0 THEN
    UPDATE sandbox_leases SET liveness = 'draining', expires_at = p_now + berth_ms(p_idle_grace_ms)
     WHERE id = p_lease_id RETURNING * INTO v_lease;
    PERFORM berth_lease_log(v_before, v_lease, 'drain', p_kind || ':' || p_holder_id, 'last_holder_released', p_now);
  END IF;
  RETURN QUERY SELECT 'released', CASE WHEN v_deleted THEN NULL ELSE 'not_held' END, to_jsonb(v_lease);
END $$;

-- ---------------------------------------------------------------------------------------------
-- The spawner's path (spec §5). Each is a CAS on (liveness, epoch[, allocation, instance]) whose
-- loss is a named outcome; none of them changes anything when it loses.

-- The allocation id is persisted under the warming epoch BEFORE any backend create, so a box is
-- always findable. It survives a warming expiry: a successor adopts the same allocation
-- (outcome 'adopted' with the existing id) instead of creating a second box.
CREATE FUNCTION berth_lease_record_allocation(
  p_workspace_id uuid, p_lease_id uuid, p_expected_epoch integer, p_allocation_id text, p_now timestamptz)
RETURNS TABLE (outcome text, reason text, lease jsonb) LANGUAGE plpgsql AS $$
DECLARE
  v_lease sandbox_leases;
BEGIN
  SELECT * INTO v_lease FROM sandbox_leases WHERE id = p_lease_id AND workspace_id = p_workspace_id FOR UPDATE;
  IF NOT FOUND THEN RETURN QUERY SELECT 'refused', 'lease_not_found', NULL::jsonb; RETURN; END IF;
  IF v_lease.liveness <> 'warming' OR v_lease.epoch <> p_expected_epoch THEN
    RETURN QUERY SELECT 'refused', 'stale_epoch', to_jsonb(v_lease); RETURN;
  END IF;
  IF v_lease.allocation_id IS NOT NULL THEN
    RETURN QUERY SELECT CASE WHEN v_lease.allocation_id = p_allocation_id THEN 'recorded' ELSE 'adopted' END,
      NULL::text, to_jsonb(v_lease);
    RETURN;
  END IF;
  UPDATE sandbox_leases SET allocation_id = p_allocation_id WHERE id = p_lease_id RETURNING * INTO v_lease;
  RETURN QUERY SELECT 'recorded', NULL::text, to_jsonb(v_lease);
END $$;

-- T4: attribute the created box to the warming epoch (leak-proof: if the spawner dies now, the
-- reaper still finds and stops it). The rematerialization attempt must be the current one, so a
-- stale attempt cannot attribute. Does not bump the epoch or publish warm.
CREATE FUNCTION berth_lease_record_created(
  p_workspace_id uuid, p_lease_id uuid, p_expected_epoch integer, p_allocation_id text,
  p_instance_id text, p_rematerialization_id uuid, p_warming_ttl_ms integer, p_now timestamptz)
RETURNS TABLE (outcome text, reason text, lease jsonb) LANGUAGE plpgsql AS $$
DECLARE
  v_lease sandbox_leases;
  v_before sandbox_leases;
BEGIN
  SELECT * INTO v_before FROM sandbox_leases WHERE id = p_lease_id AND workspace_id = p_workspace_id FOR UPDATE;
  IF NOT FOUND THEN RETURN QUERY SELECT 'refused', 'lease_not_found', NULL::jsonb; RETURN; END IF;
  IF v_before.liveness <> 'warming' OR v_before.epoch <> p_expected_epoch THEN
    RETURN QUERY SELECT 'refused', 'stale_epoch', to_jsonb(v_before); RETURN;
  END IF;
  IF v_before.allocation_id IS DISTINCT FROM p_allocation_id THEN
    RETURN QUERY SELECT 'refused', 'allocation_mismatch', to_jsonb(v_before); RETURN;
  END IF;
  IF v_before.rematerialization_id IS DISTINCT FROM p_rematerialization_id THEN
    RETURN QUERY SELECT 'refused', 'rematerialization_mismatch', to_jsonb(v_before); RETURN;
  END IF;
  UPDATE sandbox_leases SET instance_id = p_instance_id, provider_status = 'creating',
         expires_at = GREATEST(expires_at, p_now + berth_ms(p_warming_ttl_ms))
   WHERE id = p_lease_id RETURNING * INTO v_lease;
  RETURN QUERY SELECT 'recorded', NULL::text, to_jsonb(v_lease);
END $$;

-- T5: publish the verified box. epoch+1 fences every actor of the warming epoch. A lease with a
-- complete archive may only go warm through a rematerialization that restored and verified
-- exactly the selected revision (never warm on a guess, never an empty workspace).
CREATE FUNCTION berth_lease_commit_warm(
  p_workspace_id uuid, p_lease_id uuid, p_expected_epoch integer, p_instance_id text,
  p_rematerialization_id uuid, p_lease_ttl_ms integer, p_actor text, p_now timestamptz)
RETURNS TABLE (outcome text, reason text, lease jsonb) LANGUAGE plpgsql AS $$
DECLARE
  v_lease sandbox_leases;
  v_before sandbox_leases;
BEGIN
  SELECT * INTO v_before FROM sandbox_leases WHERE id = p_lease_id AND workspace_id = p_workspace_id FOR UPDATE;
  IF NOT FOUND THEN RETURN QUERY SELECT 'refused', 'lease_not_found', NULL::jsonb; RETURN; END IF;
  IF v_before.liveness <> 'warming' OR v_before.epoch <> p_expected_epoch THEN
    RETURN QUERY SELECT 'refused', 'stale_epoch', to_jsonb(v_before); RETURN;
  END IF;
  IF v_before.instance_id IS DISTINCT FROM p_instance_id THEN
    RETURN QUERY SELECT 'refused', 'instance_mismatch', to_jsonb(v_before); RETURN;
  END IF;
  IF p_rematerialization_id IS NULL AND v_before.archive_status = 'available' THEN
    RETURN QUERY SELECT 'refused', 'rematerialization_required', to_jsonb(v_before); RETURN;
  END IF;
  IF p_rematerialization_id IS NOT NULL AND (v_before.restore_status <> 'verifying'
     OR v_before.rematerialization_id IS DISTINCT FROM p_rematerialization_id) THEN
    RETURN QUERY SELECT 'refused', 'rematerialization_mismatch', to_jsonb(v_before); RETURN;
  END IF;
  UPDATE sandbox_leases
     SET liveness = 'warm', epoch = epoch + 1, provider_status = 'exists',
         restore_status = CASE WHEN p_rematerialization_id IS NULL THEN 'not_required' ELSE 'ready' END,
         workspace_status = 'ready', restore_attempts = 0, failure_code = NULL, retryable = NULL,
         expires_at = p_now + berth_ms(p_lease_ttl_ms)
   WHERE id = p_lease_id RETURNING * INTO v_lease;
  IF p_rematerialization_id IS NOT NULL THEN
    UPDATE rematerializations SET status = 'ready', completed_at = p_now WHERE id = p_rematerialization_id;
  END IF;
  PERFORM berth_lease_log(v_before, v_lease, 'commit_warm', p_actor, NULL, p_now);
  RETURN QUERY SELECT 'committed', NULL::text, to_jsonb(v_lease);
END $$;

-- T6: the spawner gives up (not a restore failure: that is fail-rematerialization). epoch+1
-- fences its late callbacks. An existing archive is kept for the retry (restore pending); the
-- allocation is forgotten only when the caller confirmed the box is terminated.
CREATE FUNCTION berth_lease_fail_warming(
  p_workspace_id uuid, p_lease_id uuid, p_expected_epoch integer, p_terminated boolean,
  p_actor text, p_reason text, p_now timestamptz)
RETURNS TABLE (outcome text, reason text, lease jsonb) LANGUAGE plpgsql AS $$
DECLARE
  v_lease sandbox_leases;
  v_before sandbox_leases;
BEGIN
  SELECT * INTO v_before FROM sandbox_leases WHERE id = p_lease_id AND workspace_id = p_workspace_id FOR UPDATE;
  IF NOT FOUND THEN RETURN QUERY SELECT 'refused', 'lease_not_found', NULL::jsonb; RETURN; END IF;
  IF v_before.liveness <> 'warming' OR v_before.epoch <> p_expected_epoch THEN
    RETURN QUERY SELECT 'refused', 'stale_epoch', to_jsonb(v_before); RETURN;
  END IF;
  UPDATE sandbox_leases
     SET liveness = 'cold', epoch = epoch + 1, instance_id = NULL, rematerialization_id = NULL,
         allocation_id = CASE WHEN p_terminated THEN NULL ELSE allocation_id END,
         provider_status = CASE WHEN p_terminated THEN 'not_created' ELSE 'unknown' END,
         restore_status = CASE WHEN archive_status = 'available' THEN 'pending' ELSE 'not_required' END,
         workspace_status = CASE WHEN archive_status = 'available' THEN 'not_ready' ELSE 'unknown' END,
         expires_at = p_now
   WHERE id = p_lease_id RETURNING * INTO v_lease;
  UPDATE rematerializations SET status = 'failed', failure_code = 'warming_failed', retryable = true, completed_at = p_now
   WHERE id = v_before.rematerialization_id AND status IN ('restoring', 'verifying');
  PERFORM berth_lease_log(v_before, v_lease, 'fail_warming', p_actor, p_reason, p_now);
  RETURN QUERY SELECT 'failed', NULL::text, to_jsonb(v_lease);
END $$;

-- T15: the warm box is gone. One caller wins (CAS on epoch + instance); holders keep their
-- interest, except process holders, which lived in the lost box. A box lost with no archive
-- cannot be restored: unrecoverable until an admin acts.
CREATE FUNCTION berth_lease_mark_instance_lost(
  p_workspace_id uuid, p_lease_id uuid, p_expected_epoch integer, p_instance_id text,
  p_actor text, p_now timestamptz)
RETURNS TABLE (outcome text, reason text, lease jsonb) LANGUAGE plpgsql AS $$
DECLARE
  v_lease sandbox_leases;
  v_before sandbox_leases;
BEGIN
  SELECT * INTO v_before FROM sandbox_leases WHERE id = p_lease_id AND workspace_id = p_workspace_id FOR UPDATE;
  IF NOT FOUND THEN RETURN QUERY SELECT 'stale', 'lease_not_found', NULL::jsonb; RETURN; END IF;
  IF v_before.liveness <> 'warm' OR v_before.epoch <> p_expected_epoch OR v_before.instance_id IS DISTINCT FROM p_instance_id THEN
    RETURN QUERY SELECT 'stale', 'stale_epoch', to_jsonb(v_before); RETURN;
  END IF;
  DELETE FROM lease_holders WHERE lease_id = p_lease_id AND kind = 'process';
  PERFORM berth_lease_recount(p_lease_id);
  UPDATE sandbox_leases
     SET liveness = 'cold', epoch = epoch + 1, instance_id = NULL, allocation_id = NULL,
         provider_status = 'missing',
         selected_revision = CASE WHEN archive_status = 'available' AND archive_generation = workspace_generation
                                  THEN archive_revision ELSE selected_revision END,
         restore_status = CASE WHEN archive_status = 'available' AND archive_generation = workspace_generation THEN 'pending'
                               WHEN archive_status = 'none' THEN 'unrecoverable' ELSE 'degraded' END,
         workspace_status = CASE WHEN archive_status = 'available' AND archive_generation = workspace_generation THEN 'not_ready'
                                 WHEN archive_status = 'none' THEN 'unrecoverable' ELSE 'degraded' END,
         failure_code = CASE WHEN archive_status = 'available' AND archive_generation = workspace_generation THEN NULL
                             WHEN archive_status = 'none' THEN 'archive_unavailable'
                             WHEN archive_status = 'available' THEN 'archive_generation_mismatch' ELSE 'archive_unverified' END,
         retryable = CASE WHEN archive_status = 'available' AND archive_generation = workspace_generation THEN NULL ELSE false END,
         expires_at = p_now
   WHERE id = p_lease_id RETURNING * INTO v_lease;
  PERFORM berth_lease_log(v_before, v_lease, 'instance_lost', p_actor, NULL, p_now);
  RETURN QUERY SELECT 'marked', NULL::text, to_jsonb(v_lease);
END $$;

-- T12 outside acquire: the reaper's or a caller's re-arm within the grace.
CREATE FUNCTION berth_lease_rearm(
  p_workspace_id uuid, p_lease_id uuid, p_expected_epoch integer, p_lease_ttl_ms integer, p_actor text, p_now timestamptz)
RETURNS TABLE (outcome text, reason text, lease jsonb) LANGUAGE plpgsql AS $$
DECLARE
  v_lease sandbox_leases;
  v_before sandbox_leases;
BEGIN
  SELECT * INTO v_before FROM sandbox_leases WHERE id = p_lease_id AND workspace_id = p_workspace_id FOR UPDATE;
  IF NOT FOUND THEN RETURN QUERY SELECT 'refused', 'lease_not_found', NULL::jsonb; RETURN; END IF;
  IF v_before.liveness <> 'draining' OR v_before.epoch <> p_expected_epoch OR v_before.expires_at <= p_now
     OR v_before.rotation_requested_at IS NOT NULL THEN
    RETURN QUERY SELECT 'refused', 'not_rearmable', to_jsonb(v_before); RETURN;
  END IF;
  UPDATE sandbox_leases SET liveness = 'warm', expires_at = p_now + berth_ms(p_lease_ttl_ms)
   WHERE id = p_lease_id RETURNING * INTO v_lease;
  PERFORM berth_lease_log(v_before, v_lease, 'rearm', p_actor, NULL, p_now);
  RETURN QUERY SELECT 'rearmed', NULL::text, to_jsonb(v_lease);
END $$;

-- ---------------------------------------------------------------------------------------------
-- Sweeps the reaper calls. Each locks a bounded batch with SKIP LOCKED, so any number of reaper
-- replicas share the work without processing one lease twice; a busy row waits for the next sweep.

-- T8/T9: a spawner that missed its deadline. No box recorded -> cold (epoch+1; the allocation kept
-- for its successor to adopt; an archive kept with restore pending; the attempt abandoned); a box
-- recorded -> draining at epoch+1, immediately drainable.
CREATE FUNCTION berth_lease_expire_warming(p_now timestamptz, p_limit integer)
RETURNS TABLE (outcome text, reason text, lease jsonb) LANGUAGE plpgsql AS $$
DECLARE
  v_before sandbox_leases;
  v_lease sandbox_leases;
BEGIN
  FOR v_before IN
    SELECT * FROM sandbox_leases WHERE liveness = 'warming' AND expires_at <= p_now
     ORDER BY expires_at LIMIT p_limit FOR UPDATE SKIP LOCKED
  LOOP
    UPDATE rematerializations SET status = 'failed', failure_code = 'warming_expired', retryable = true, completed_at = p_now
     WHERE id = v_before.rematerialization_id AND status IN ('restoring', 'verifying');
    IF v_before.instance_id IS NULL THEN
      UPDATE sandbox_leases SET liveness = 'cold', epoch = epoch + 1, provider_status = 'not_created',
             rematerialization_id = NULL, rotation_requested_at = NULL, expires_at = p_now,
             restore_status = CASE WHEN archive_status = 'available' THEN 'pending' ELSE restore_status END,
             workspace_status = CASE WHEN archive_status = 'available' THEN 'not_ready' ELSE workspace_status END
       WHERE id = v_before.id RETURNING * INTO v_lease;
      PERFORM berth_lease_log(v_before, v_lease, 'expire_warming', 'reaper', 'no_box_recorded', p_now);
      RETURN QUERY SELECT 'cold', NULL::text, to_jsonb(v_lease);
    ELSE
      DELETE FROM lease_holders WHERE lease_id = v_before.id;
      PERFORM berth_lease_recount(v_before.id);
      UPDATE sandbox_leases SET liveness = 'draining', epoch = epoch + 1, rematerialization_id = NULL,
             restore_status = CASE WHEN archive_status = 'available' THEN 'pending' ELSE restore_status END,
             expires_at = p_now
       WHERE id = v_before.id RETURNING * INTO v_lease;
      PERFORM berth_lease_log(v_before, v_lease, 'expire_warming', 'reaper', 'box_recorded', p_now);
      RETURN QUERY SELECT 'draining', NULL::text, to_jsonb(v_lease);
    END IF;
  END LOOP;
END $$;

-- Holders whose owner stopped heartbeating: viewer and direct by their TTL, turn after the
-- turn horizon (warming timeout + lease TTL, so a live warmup is never reaped). Process holders
-- never expire. Warm leases left without holders start their idle grace (T11).
CREATE FUNCTION berth_lease_reap_holders(
  p_now timestamptz, p_viewer_ttl_ms integer, p_turn_ttl_ms integer, p_idle_grace_ms integer, p_limit integer)
RETURNS TABLE (outcome text, reason text, lease jsonb) LANGUAGE plpgsql AS $$
DECLARE
  v_before sandbox_leases;
  v_lease sandbox_leases;
  v_reaped integer;
BEGIN
  FOR v_before IN
    SELECT l.* FROM sandbox_leases l
     WHERE l.liveness IN ('warming', 'warm') AND EXISTS (
       SELECT 1 FROM lease_holders h WHERE h.lease_id = l.id AND (
         (h.kind IN ('viewer', 'direct') AND h.last_heartbeat_at < p_now - berth_ms(p_viewer_ttl_ms)) OR
         (h.kind = 'turn' AND h.last_heartbeat_at < p_now - berth_ms(p_turn_ttl_ms))))
     LIMIT p_limit FOR UPDATE OF l SKIP LOCKED
  LOOP
    DELETE FROM lease_holders h WHERE h.lease_id = v_before.id AND (
      (h.kind IN ('viewer', 'direct') AND h.last_heartbeat_at < p_now - berth_ms(p_viewer_ttl_ms)) OR
      (h.kind = 'turn' AND h.last_heartbeat_at < p_now - berth_ms(p_turn_ttl_ms)));
    GET DIAGNOSTICS v_reaped = ROW_COUNT;
    v_lease := berth_lease_recount(v_before.id);
    IF v_lease.liveness = 'warm' AND v_lease.holder_count = 0 THEN
      UPDATE sandbox_leases SET liveness = 'draining', expires_at = p_now + berth_ms(p_idle_grace_ms)
       WHERE id = v_before.id RETURNING * INTO v_lease;
      PERFORM berth_lease_log(v_before, v_lease, 'drain', 'reaper', 'holders_expired', p_now);
    END IF;
    RETURN QUERY SELECT 'reaped', v_reaped::text, to_jsonb(v_lease);
  END LOOP;
END $$;

-- Draining leases past their grace with no holders, claimed for one reaper: the claim is set in
-- the same statement that locks the batch (SKIP LOCKED), so two reapers never take one lease,
-- and it outlives the statement (a capture can take minutes); an expired claim is taken over.
CREATE FUNCTION berth_lease_claim_drainable(p_now timestamptz, p_claim_id uuid, p_claim_ttl_ms integer, p_limit integer)
RETURNS TABLE (outcome text, reason text, lease jsonb) LANGUAGE sql AS $$
  UPDATE sandbox_leases l
     SET drain_claim_id = p_claim_id, drain_claim_expires_at = p_now + berth_ms(p_claim_ttl_ms)
    FROM (SELECT id FROM sandbox_leases
           WHERE liveness = 'draining' AND expires_at <= p_now AND holder_count = 0
             AND (drain_claim_expires_at IS NULL OR drain_claim_expires_at <= p_now)
           ORDER BY expires_at LIMIT p_limit FOR UPDATE SKIP LOCKED) c
   WHERE l.id = c.id
  RETURNING 'drainable'::text, NULL::text, to_jsonb(l)
$$;

-- T14: the drained box was captured (or had nothing to capture) and stopped: cold at epoch+1.
-- Only a zero-holder draining lease at the expected epoch and instance moves. The archive is
-- kept (restore pending when it captured every write). A box that was already gone before it
-- could be captured, with no archive, is unrecoverable.
CREATE FUNCTION berth_lease_confirm_drain_cold(
  p_workspace_id uuid, p_lease_id uuid, p_expected_epoch integer, p_instance_id text,
  p_provider_missing boolean, p_actor text, p_now timestamptz)
RETURNS TABLE (outcome text, reason text, lease jsonb) LANGUAGE plpgsql AS $$
DECLARE
  v_lease sandbox_leases;
  v_before sandbox_leases;
  v_complete boolean;
  v_clean boolean;
BEGIN
  SELECT * INTO v_before FROM sandbox_leases WHERE id = p_lease_id AND workspace_id = p_workspace_id FOR UPDATE;
  IF NOT FOUND THEN RETURN QUERY SELECT 'refused', 'lease_not_found', NULL::jsonb; RETURN; END IF;
  IF v_before.liveness <> 'draining' OR v_before.epoch <> p_expected_epoch OR v_before.holder_count <> 0
     OR v_before.instance_id IS DISTINCT FROM p_instance_id THEN
    RETURN QUERY SELECT 'refused', 'stale_epoch', to_jsonb(v_before); RETURN;
  END IF;
  v_complete := v_before.archive_status = 'available' AND v_before.archive_generation = v_before.workspace_generation;
  v_clean := v_before.archive_status = 'none' AND NOT p_provider_missing;
  UPDATE sandbox_leases
     SET liveness = 'cold', epoch = epoch + 1, instance_id = NULL, allocation_id = NULL,
         rotation_requested_at = NULL, drain_claim_id = NULL, drain_claim_expires_at = NULL,
         provider_status = CASE WHEN p_provider_missing THEN 'missing' ELSE 'not_created' END,
         selected_revision = CASE WHEN v_complete THEN archive_revision ELSE selected_revision END,
         restore_status = CASE WHEN v_complete THEN 'pending' WHEN v_clean THEN 'not_required'
                               WHEN archive_status = 'none' THEN 'unrecoverable' ELSE 'degraded' END,
         workspace_status = CASE WHEN v_complete THEN 'not_ready' WHEN v_clean THEN 'unknown'
                                 WHEN archive_status = 'none' THEN 'unrecoverable' ELSE 'degraded' END,
         failure_code = CASE WHEN v_complete OR v_clean THEN NULL
                             WHEN archive_status = 'none' THEN 'provider_missing_before_capture'
                             ELSE 'archive_generation_mismatch' END,
         retryable = CASE WHEN v_complete OR v_clean THEN NULL ELSE false END,
         expires_at = p_now
   WHERE id = p_lease_id RETURNING * INTO v_lease;
  PERFORM berth_lease_log(v_before, v_lease, 'drain_cold', p_actor, NULL, p_now);
  RETURN QUERY SELECT 'cold', NULL::text, to_jsonb(v_lease);
END $$;
