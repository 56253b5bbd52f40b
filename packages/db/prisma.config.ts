import { defineConfig } from "prisma/config";

// Only `prisma generate` runs here; migrations are applied by src/migrate.
export default defineConfig({
  schema: "../../prisma/schema.prisma",
  migrations: { path: "../../prisma/migrations" },
});
