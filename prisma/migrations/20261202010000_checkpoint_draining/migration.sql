-- Issue 33: late writes waited unarchived for the whole idle grace. The periodic checkpoint
-- claimed only warm leases, but a session driven by API calls is draining between its calls.
-- It now claims every lease with a live box, warm or draining within its grace, and a trickle
-- of writes (never quiet) is claimed once its oldest unarchived write is p_max_ms old. A capture
-- of a draining box is no arrival: nothing here touches holders, liveness or expires_at.
--
-- One capture of a lease at a time: the checkpoint does not claim a lease the reaper owns
-- (draining past its grace, or drain-claimed: a worker's p_now is read before its statement
-- runs, so it may still be inside a grace another worker's reaper already saw end), and the
-- reaper does not claim a lease a checkpoint holds; it drains it at the next sweep. Otherwise a
-- checkpoint's capture taken before the drain's could be published after it, and the box be
-- stopped with an older archive than its last capture (files a process in the box changed
-- meanwhile, lost).

-- Claims leases with a live box whose workspace moved past its archive, with no write in flight
-- (a capture could not be published under one) and either quiet (no unarchived write admitted
-- in the last p_quiet_ms) or overdue (an unarchived write admitted p_max_ms ago or earlier).
-- Never a box that did not go warm. The oldest unarchived write first. SKIP LOCKED plus a claim that outlives the statement: any
-- number of workers, one checkpoint per lease at a time. Admissions are read through their
-- indexes: (lease_id, generation) and the partial index of unsettled ones.
DROP FUNCTION berth_lease_claim_checkpoints(timestamptz, uuid, integer, integer, integer);
CREATE FUNCTION berth_lease_claim_checkpoints(
  p_now timestamptz, p_claim_id uuid, p_claim_ttl_ms integer, p_quiet_ms integer, p_max_ms integer,
  p_limit integer)
RETURNS TABLE (outcome text, reason text, lease jsonb) LANGUAGE sql AS $$
  UPDATE sandbox_leases l
     SET checkpoint_claim_id = p_claim_id, checkpoint_claim_expires_at = p_now + berth_ms(p_claim_ttl_ms)
    FROM (SELECT s.id FROM sandbox_leases s
           WHERE s.instance_id IS NOT NULL AND s.workspace_generation > 0
             AND (s.liveness = 'warm' OR (s.liveness = 'draining' AND s.expires_at > p_now))
             -- A box that never went warm (still `creating`) holds no admitted write, only an
             -- empty tree or a restore cut short: never published over the lease's archive.
             AND s.provider_status <> 'creating'
             AND s.archive_generation IS DISTINCT FROM s.workspace_generation
             AND (s.checkpoint_claim_expires_at IS NULL OR s.checkpoint_claim_expires_at <= p_now)
             AND (s.drain_claim_expires_at IS NULL OR s.drain_claim_expires_at <= p_now)
             AND NOT EXISTS (SELECT 1 FROM mutation_admissions a WHERE a.lease_id = s.id AND a.settled_at IS NULL)
             AND (NOT EXISTS (SELECT 1 FROM mutation_admissions a
                               WHERE a.lease_id = s.id AND a.generation > coalesce(s.archive_generation, 0)
                                 AND a.admitted_at > p_now - berth_ms(p_quiet_ms))
                  OR EXISTS (SELECT 1 FROM mutation_admissions a
                              WHERE a.lease_id = s.id AND a.generation > coalesce(s.archive_generation, 0)
                                AND a.admitted_at <= p_now - berth_ms(p_max_ms)))
           ORDER BY (SELECT min(a.admitted_at) FROM mutation_admissions a
                      WHERE a.lease_id = s.id AND a.generation > coalesce(s.archive_generation, 0)) NULLS FIRST
           LIMIT p_limit FOR UPDATE SKIP LOCKED) c
   WHERE l.id = c.id
  RETURNING 'claimed'::text, NULL::text, to_jsonb(l)
$$;

-- Draining leases past their grace with no holders, claimed for one reaper (as before), except
-- while a checkpoint holds one: its capture finishes first, the next sweep drains it. A
-- checkpoint claim that outlived its worker expires after its TTL.
CREATE OR REPLACE FUNCTION berth_lease_claim_drainable(p_now timestamptz, p_claim_id uuid, p_claim_ttl_ms integer, p_limit integer)
RETURNS TABLE (outcome text, reason text, lease jsonb) LANGUAGE sql AS $$
  UPDATE sandbox_leases l
     SET drain_claim_id = p_claim_id, drain_claim_expires_at = p_now + berth_ms(p_claim_ttl_ms)
    FROM (SELECT id FROM sandbox_leases
           WHERE liveness = 'draining' AND expires_at <= p_now AND holder_count = 0
             AND (drain_claim_expires_at IS NULL OR drain_claim_expires_at <= p_now)
             AND (checkpoint_claim_expires_at IS NULL OR checkpoint_claim_expires_at <= p_now)
           ORDER BY expires_at LIMIT p_limit FOR UPDATE SKIP LOCKED) c
   WHERE l.id = c.id
  RETURNING 'drainable'::text, NULL::text, to_jsonb(l)
$$;
