-- API processes cache verified API tokens (packages/api/src/auth/tokenCache.ts) and forget them
-- all when told that anything a token lookup reads has changed: a token revoked, expired early
-- or removed, or a membership's role changed or removed (deleting a user or a workspace
-- cascades into these rows, so it notifies too). pg_notify runs at commit, so a rolled-back
-- change tells no one. A token's last_used_at, written once a minute per token, is not listed:
-- it changes nothing a lookup decides on. New rows need no notice: nothing unknown is cached.
CREATE FUNCTION berth_credentials_notify() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('berth_credentials', TG_TABLE_NAME);
  RETURN NULL;
END $$;

CREATE TRIGGER api_tokens_credentials_notify
  AFTER UPDATE OF workspace_id, user_id, role, token_hash, expires_at, revoked_at OR DELETE
  ON api_tokens
  FOR EACH STATEMENT EXECUTE FUNCTION berth_credentials_notify();

CREATE TRIGGER memberships_credentials_notify
  AFTER UPDATE OF workspace_id, user_id, role OR DELETE
  ON memberships
  FOR EACH STATEMENT EXECUTE FUNCTION berth_credentials_notify();
