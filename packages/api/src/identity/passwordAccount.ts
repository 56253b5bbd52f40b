import type { DbClientOrTx } from "@berth/db";
import { hashPassword } from "../auth/passwordHash.ts";

/**
 * A user who signs in with email + password, written the way better-auth reads it: a
 * `credential` account whose account id is the user id, holding the argon2id hash.
 */
export async function createPasswordUser(
  db: DbClientOrTx,
  input: { email: string; name: string; password: string },
): Promise<{ id: string }> {
  const passwordHash = await hashPassword(input.password);
  const user = await db.user.create({
    data: { email: input.email.toLowerCase(), name: input.name },
    select: { id: true },
  });
  await db.authAccount.create({
    data: {
      userId: user.id,
      accountId: user.id,
      providerId: "credential",
      password: passwordHash,
    },
  });
  return user;
}
