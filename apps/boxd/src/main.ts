// boxd, the daemon inside every box: serves one workspace folder over HTTP and WebSocket to
// whoever holds the box's token. Configured by its environment only (see env.ts).
// `boxd agent …` is the other way to run it: on a user's own machine, dialling out to Berth
// (agent/runAgent.ts).
import { runAgentMain } from "./agent/runAgent.ts";
import { runDaemon } from "./daemon.ts";

if (process.argv[2] === "agent") await runAgentMain(process.argv.slice(3));
else await runDaemon();
