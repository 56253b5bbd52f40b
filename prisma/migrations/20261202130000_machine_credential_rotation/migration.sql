-- Rotating a machine's credential (issue 39). An admin asks for it: the request is marked on the
-- credentials the machine holds now (rotation_requested_at). The agent, told down its channel,
-- exchanges its credential for a new one (unmarked) and connects with that. The old one stays
-- accepted until the new one first opens a channel, so an agent that never received or never
-- saved the new one is not locked out; a channel opened with a credential retires every other
-- credential of its machine. An agent still connecting with a marked credential is told again.
ALTER TABLE "machine_credentials" ADD COLUMN "rotation_requested_at" TIMESTAMPTZ(3);

-- The exchange is audited as the machine's own act.
ALTER TABLE "audit_events" DROP CONSTRAINT "audit_events_actor_kind_check";
ALTER TABLE "audit_events" ADD CONSTRAINT "audit_events_actor_kind_check" CHECK ("actor_kind" IN ('user', 'token', 'system', 'machine'));
