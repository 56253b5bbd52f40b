import { describe, expect, it } from "vitest";
import { createScratchDatabase } from "../../test/scratchDatabase.ts";
import { execute } from "../../test/driftSupport.ts";
import { checkSchemaDrift } from "./index.ts";

// The repository's schema uses few types; this pins the whole Prisma → Postgres mapping (types,
// defaults, lists, enums, index options, default referential actions) against a real database,
// using SQL written the way `prisma migrate` renders it.

const schemaText = `
datasource db {
  provider = "postgresql"
}

enum Role {
  ADMIN @map("admin")
  USER

  @@map("role_kind")
}

model Sample {
  id       Int      @id @default(autoincrement())
  big      BigInt   @default(9999999999)
  small    Int      @default(-1) @db.SmallInt
  ratio    Float    @default(1.5)
  price    Decimal  @default(2.25)
  money    Decimal  @db.Decimal(10, 2)
  doc      Json     @default("{\\"b\\": 1, \\"a\\": [1, 2]}")
  raw      Json?    @db.Json
  tags     String[] @default(["x", "y"])
  scores   Int[]    @default([])
  role     Role     @default(ADMIN)
  roles    Role[]
  at       DateTime @default("2020-01-01T00:00:00Z")
  day      DateTime @db.Date
  code     String   @default("it's") @db.VarChar(10)
  letter   String   @db.Char(1)
  flag     Boolean  @default(true)
  blob     Bytes    @default("aGk=")
  token    String   @default(uuid())
  external String   @default(dbgenerated("gen_random_uuid()")) @db.Uuid
  parentId Int?     @map("parent_id")
  parent   Sample?  @relation("Tree", fields: [parentId], references: [id])
  children Sample[] @relation("Tree")
  pairs    Pair[]

  @@unique([code, big])
  @@index([ratio(sort: Desc), big], map: "sample_ratio_big_idx")
  @@index([doc], type: Gin)
  @@map("samples")
}

model Pair {
  left     Int
  right    Int
  sampleId Int    @map("sample_id")
  sample   Sample @relation(fields: [sampleId], references: [id])

  @@id([left, right])
  @@map("pairs")
}
`;

const migration = `
CREATE TYPE "role_kind" AS ENUM ('admin', 'USER');
CREATE TABLE "samples" (
    "id" SERIAL NOT NULL,
    "big" BIGINT NOT NULL DEFAULT 9999999999,
    "small" SMALLINT NOT NULL DEFAULT -1,
    "ratio" DOUBLE PRECISION NOT NULL DEFAULT 1.5,
    "price" DECIMAL(65,30) NOT NULL DEFAULT 2.25,
    "money" DECIMAL(10,2) NOT NULL,
    "doc" JSONB NOT NULL DEFAULT '{"b": 1, "a": [1, 2]}',
    "raw" JSON,
    "tags" TEXT[] DEFAULT ARRAY['x', 'y']::TEXT[],
    "scores" INTEGER[] DEFAULT ARRAY[]::INTEGER[],
    "role" "role_kind" NOT NULL DEFAULT 'admin',
    "roles" "role_kind"[],
    "at" TIMESTAMP(3) NOT NULL DEFAULT '2020-01-01 00:00:00 +00:00',
    "day" DATE NOT NULL,
    "code" VARCHAR(10) NOT NULL DEFAULT 'it''s',
    "letter" CHAR(1) NOT NULL,
    "flag" BOOLEAN NOT NULL DEFAULT true,
    "blob" BYTEA NOT NULL DEFAULT '\\x6869',
    "token" TEXT NOT NULL,
    "external" UUID NOT NULL DEFAULT gen_random_uuid(),
    "parent_id" INTEGER,
    CONSTRAINT "samples_pkey" PRIMARY KEY ("id")
);
CREATE TABLE "pairs" (
    "left" INTEGER NOT NULL,
    "right" INTEGER NOT NULL,
    "sample_id" INTEGER NOT NULL,
    CONSTRAINT "pairs_pkey" PRIMARY KEY ("left", "right")
);
CREATE UNIQUE INDEX "samples_code_big_key" ON "samples"("code", "big");
CREATE INDEX "sample_ratio_big_idx" ON "samples"("ratio" DESC, "big");
CREATE INDEX "samples_doc_idx" ON "samples" USING GIN ("doc");
ALTER TABLE "samples" ADD CONSTRAINT "samples_parent_id_fkey" FOREIGN KEY ("parent_id") REFERENCES "samples"("id") ON DELETE SET NULL ON UPDATE CASCADE;
ALTER TABLE "pairs" ADD CONSTRAINT "pairs_sample_id_fkey" FOREIGN KEY ("sample_id") REFERENCES "samples"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
`;

async function driftOf(options: { readonly schema: string; readonly alter?: string }) {
  await using db = await createScratchDatabase();
  await execute(db.url, migration);
  if (options.alter !== undefined) await execute(db.url, options.alter);
  const report = await checkSchemaDrift({
    schemaText: options.schema,
    connectionString: db.url,
    allowlist: [],
  });
  return report.differences;
}

describe("schema drift: Prisma's Postgres types and defaults", () => {
  it("finds no difference for SQL written the way prisma migrate renders the schema", async () => {
    expect(await driftOf({ schema: schemaText })).toEqual([]);
  });

  it("reports a renamed enum value", async () => {
    const differences = await driftOf({
      schema: schemaText,
      alter: `ALTER TYPE role_kind RENAME VALUE 'USER' TO 'user'`,
    });

    expect(differences).toEqual([
      expect.objectContaining({
        kind: "enumValuesMismatch",
        enum: "role_kind",
        expected: ["admin", "USER"],
        actual: ["admin", "user"],
      }),
    ]);
  });

  it("reports a DESC index that became ascending", async () => {
    const differences = await driftOf({
      schema: schemaText,
      alter: `DROP INDEX sample_ratio_big_idx; CREATE INDEX sample_ratio_big_idx ON samples (ratio, big)`,
    });

    expect(differences).toEqual([
      expect.objectContaining({
        kind: "missingIndex",
        table: "samples",
        columns: ["ratio DESC", "big"],
      }),
      expect.objectContaining({ kind: "extraIndex", table: "samples", columns: ["ratio", "big"] }),
    ]);
  });

  it("reports a changed JSON default by value, not by spelling", async () => {
    const differences = await driftOf({
      schema: schemaText,
      alter: `ALTER TABLE samples ALTER COLUMN doc SET DEFAULT '{"a": [1, 2], "b": 2}'`,
    });

    expect(differences).toEqual([
      expect.objectContaining({ kind: "defaultMismatch", table: "samples", column: "doc" }),
    ]);
  });

  it("reports a changed list default", async () => {
    const differences = await driftOf({
      schema: schemaText,
      alter: `ALTER TABLE samples ALTER COLUMN tags SET DEFAULT '{x}'`,
    });

    expect(differences).toEqual([
      expect.objectContaining({
        kind: "defaultMismatch",
        table: "samples",
        column: "tags",
        expected: "[x, y]",
      }),
    ]);
  });
});
