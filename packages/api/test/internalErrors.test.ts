import { useTestDatabase } from "@berth/testkit";
import { describe, expect, it } from "vitest";
import { createTestApi, publicUrl } from "./support/testApi.ts";

const database = useTestDatabase();

describe("internal errors", () => {
  it("answer 500 with no detail, and are logged with their cause and procedure; a caller's error is not", async () => {
    const logged: { details: Record<string, unknown>; message: string }[] = [];
    const api = createTestApi(database.current.url, {
      logger: { error: (details, message) => logged.push({ details: { ...details }, message }) },
    });
    try {
      const unknown = await api.handleTrpc(new Request(`${publicUrl}/api/trpc/status.nope`));
      expect(unknown.status).toBe(404);
      expect(logged).toEqual([]);

      // A table the procedure reads is gone: nothing maps that failure, so it is internal.
      await database.current.prisma.$executeRawUnsafe(
        'ALTER TABLE "_prisma_migrations" RENAME TO "_prisma_migrations_gone"',
      );
      const failed = await api.handleTrpc(new Request(`${publicUrl}/api/trpc/status.get`));
      const body = await failed.text();
      expect(failed.status).toBe(500);
      expect(body).toContain("Internal error; it was logged.");
      expect(body).not.toContain("_prisma_migrations");

      expect(logged).toHaveLength(1);
      expect(logged[0]).toMatchObject({
        message: "a procedure failed with an internal error",
        details: { path: "status.get", type: "query" },
      });
      expect(String(logged[0]?.details.err)).toContain("_prisma_migrations");
    } finally {
      await api.close();
    }
  });
});
