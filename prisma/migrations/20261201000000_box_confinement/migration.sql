-- What each lease's box was given (issue 32): its isolation, its network and its limits, as its
-- backend reported them when it created the box. They describe the box instance_id names, so they
-- are written in the one step that records the instance (berth_lease_record_created, same CAS) and
-- are cleared whenever instance_id is (the trigger below): a lease without a box shows no
-- isolation, and no stale value outlives its box. An instance with NULL isolation is a box recorded
-- before this migration: unknown. A NULL limit is no limit (unlimited, or not enforced there).
ALTER TABLE "sandbox_leases"
  ADD COLUMN "box_isolation" TEXT,
  ADD COLUMN "box_network" TEXT,
  ADD COLUMN "box_max_processes" INTEGER,
  ADD COLUMN "box_memory_bytes" BIGINT,
  ADD COLUMN "box_cpu_weight" INTEGER,
  ADD COLUMN "box_disk_bytes" BIGINT,
  ADD CONSTRAINT "sandbox_leases_box_isolation_check" CHECK ("box_isolation" IN ('bubblewrap', 'none', 'pod')),
  ADD CONSTRAINT "sandbox_leases_box_network_check" CHECK ("box_network" IN ('none', 'egress', 'host', 'pod')),
  ADD CONSTRAINT "sandbox_leases_box_limits_check" CHECK (
    ("box_max_processes" IS NULL OR "box_max_processes" > 0) AND ("box_memory_bytes" IS NULL OR "box_memory_bytes" > 0)
    AND ("box_cpu_weight" IS NULL OR "box_cpu_weight" > 0) AND ("box_disk_bytes" IS NULL OR "box_disk_bytes" > 0)),
  -- Recorded whole or not at all, and only beside the instance it describes.
  ADD CONSTRAINT "sandbox_leases_box_check" CHECK (
    ("box_isolation" IS NULL) = ("box_network" IS NULL)
    AND ("box_isolation" IS NOT NULL OR ("box_max_processes" IS NULL AND "box_memory_bytes" IS NULL
                                         AND "box_cpu_weight" IS NULL AND "box_disk_bytes" IS NULL))
    AND ("instance_id" IS NOT NULL OR "box_isolation" IS NULL));

-- Every transition that forgets the box (fail warming, instance lost, drain to cold, a failed
-- restore, an admin's start-fresh or restore) sets instance_id to NULL; this forgets what the box
-- was given in the same row update, so none of those functions has to be rewritten to say so.
CREATE FUNCTION berth_lease_forget_box() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.box_isolation := NULL;
  NEW.box_network := NULL;
  NEW.box_max_processes := NULL;
  NEW.box_memory_bytes := NULL;
  NEW.box_cpu_weight := NULL;
  NEW.box_disk_bytes := NULL;
  RETURN NEW;
END $$;

CREATE TRIGGER "sandbox_leases_forget_box" BEFORE UPDATE OF "instance_id" ON "sandbox_leases"
  FOR EACH ROW WHEN (NEW.instance_id IS NULL AND OLD.instance_id IS NOT NULL)
  EXECUTE FUNCTION berth_lease_forget_box();

-- The worker's rotation step reads only the boxes that may run unisolated: local boxes recorded
-- as none, and boxes recorded before this migration (unknown), while the lease has one.
CREATE INDEX "sandbox_leases_unisolated_idx" ON "sandbox_leases"("liveness")
  WHERE coalesce("box_isolation", 'none') = 'none' AND "instance_id" IS NOT NULL AND "backend" = 'local';

-- T4, now with what the box was given: attribute the created box to the warming epoch
-- (leak-proof: if the spawner dies now, the reaper still finds and stops it) and record its
-- isolation, network and limits in the same update. A successor adopting the box records it again,
-- as its backend reports it now. The rematerialization attempt must be the current one, so a stale
-- attempt cannot attribute. Does not bump the epoch or publish warm.
DROP FUNCTION berth_lease_record_created(uuid, uuid, integer, text, text, uuid, integer, timestamptz);
CREATE FUNCTION berth_lease_record_created(
  p_workspace_id uuid, p_lease_id uuid, p_expected_epoch integer, p_allocation_id text,
  p_instance_id text, p_rematerialization_id uuid, p_warming_ttl_ms integer, p_now timestamptz,
  p_isolation text, p_network text, p_max_processes integer, p_memory_bytes bigint,
  p_cpu_weight integer, p_disk_bytes bigint)
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
         expires_at = GREATEST(expires_at, p_now + berth_ms(p_warming_ttl_ms)),
         box_isolation = p_isolation, box_network = p_network, box_max_processes = p_max_processes,
         box_memory_bytes = p_memory_bytes, box_cpu_weight = p_cpu_weight, box_disk_bytes = p_disk_bytes
   WHERE id = p_lease_id RETURNING * INTO v_lease;
  RETURN QUERY SELECT 'recorded', NULL::text, to_jsonb(v_lease);
END $$;

-- Once isolation works on this machine (the worker's local backend resolves bubblewrap), each
-- local lease whose box runs unisolated (or was recorded before isolation was recorded) is asked
-- to rotate as it drains: its drain becomes immediate and cannot be re-armed, so the reaper
-- captures and stops the box now and the next arrival gets a new, isolated one. Only draining
-- leases are asked: a rotation request fences every arrival at a live lease until it goes cold,
-- and holders (a viewer that stays, say) can keep a warm lease from draining for as long as they
-- like. The worker asks on every sweep, so a warm lease is asked at its next drain. SKIP LOCKED
-- batches, as the reaper's sweeps; one 'rotate' lease event per lease asked; idempotent (a lease
-- already asked is not asked again).
CREATE FUNCTION berth_lease_rotate_unisolated(p_actor text, p_now timestamptz, p_limit integer)
RETURNS TABLE (outcome text, reason text, lease jsonb) LANGUAGE plpgsql AS $$
DECLARE
  v_before sandbox_leases;
  v_lease sandbox_leases;
BEGIN
  FOR v_before IN
    SELECT * FROM sandbox_leases
     WHERE coalesce(box_isolation, 'none') = 'none' AND instance_id IS NOT NULL AND backend = 'local'
       AND liveness = 'draining' AND rotation_requested_at IS NULL
     ORDER BY expires_at LIMIT p_limit FOR UPDATE SKIP LOCKED
  LOOP
    UPDATE sandbox_leases SET rotation_requested_at = p_now, expires_at = LEAST(expires_at, p_now)
     WHERE id = v_before.id RETURNING * INTO v_lease;
    PERFORM berth_lease_log(v_before, v_lease, 'rotate', p_actor,
      CASE WHEN v_before.box_isolation IS NULL THEN 'box_isolation_unknown' ELSE 'box_unisolated' END, p_now);
    RETURN QUERY SELECT 'asked', NULL::text, to_jsonb(v_lease);
  END LOOP;
END $$;
