-- The installation id (issue 34): generated once, kept here and in the data folder
-- (<BERTH_DATA_DIR>/installation-id), and carried by every box this Berth creates, so the
-- inventory and the orphan sweep see only this installation's boxes. One row at most: the
-- singleton column is unique and can only be true, so two processes starting at once agree on
-- whichever id was inserted first (INSERT ... ON CONFLICT DO NOTHING, then read).

CREATE TABLE "installation" (
    "id" UUID NOT NULL,
    "singleton" BOOLEAN NOT NULL DEFAULT true,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "installation_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "installation_singleton_check" CHECK ("singleton")
);
CREATE UNIQUE INDEX "installation_singleton_key" ON "installation"("singleton");
