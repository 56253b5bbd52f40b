import { membershipRoles } from "@berth/db";
import { idSchema } from "@berth/validators";
import { z } from "zod";

// Input pieces shared by the routers.

export const workspaceIdInput = z.object({ workspaceId: idSchema });

export const roleSchema = z.enum(membershipRoles, {
  error: `must be one of ${membershipRoles.join(", ")}`,
});
