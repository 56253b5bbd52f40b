// Another web replica in its own OS process: the API over the environment's database, served over
// HTTP on a loopback port (PORT, or any free one) it prints as one JSON line; SIGTERM closes it.
import { apiEnvSchema, createBerthApi, serveApi } from "../../src/index.ts";

const api = createBerthApi(apiEnvSchema.parse(process.env));
const served = await serveApi(
  api,
  process.env.PORT === undefined ? {} : { port: Number(process.env.PORT) },
);
process.stdout.write(`${JSON.stringify({ url: served.url })}\n`);
process.once("SIGTERM", () => {
  void served
    .close()
    .then(() => api.close())
    .then(() => process.exit(0));
});
