// boxd, the daemon inside every box: serves one workspace folder over HTTP and WebSocket to
// whoever holds the box's token. Configured by its environment only (see env.ts).
import { runDaemon } from "./daemon.ts";

await runDaemon();
