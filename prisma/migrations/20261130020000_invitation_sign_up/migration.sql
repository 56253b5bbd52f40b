-- The email of the account created with an invitation's link, claimed by sign-up with a
-- compare-and-swap on a still-unclaimed invitation before the account's row is written: of
-- sign-ups racing on one link exactly one proceeds. The same email may claim again (its first
-- attempt may have failed after the claim) and users.email is unique, so one link creates at
-- most one account; accepting the invitation is then that account's alone.
ALTER TABLE "invitations" ADD COLUMN "sign_up_email" TEXT;
