import { statusRouter } from "./router/status.ts";
import { createTRPCRouter } from "./trpc.ts";

export const appRouter = createTRPCRouter({
  status: statusRouter,
});

export type AppRouter = typeof appRouter;
