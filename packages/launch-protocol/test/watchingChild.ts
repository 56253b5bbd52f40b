// A process that watches the pid in argv[2] (default: its parent) the way web and worker watch
// their launcher: it says "watching", then "checked" once the watch has checked three times, and
// "gone" (and exits) once the pid is gone.
import { watchLauncher } from "../src/launcherWatch.ts";

const PERIOD_MS = 50;
const pid = Number(process.argv[2] ?? process.ppid);
watchLauncher({
  pid,
  periodMs: PERIOD_MS,
  onGone: () => {
    process.stdout.write("gone\n");
    process.exit(0);
  },
});
process.stdout.write("watching\n");
// Made after the watch's timer with the same period, so its ticks run after the watch's: its
// third follows the watch's third check. It also keeps the process alive (the watch does not).
let ticks = 0;
setInterval(() => {
  ticks += 1;
  if (ticks === 3) process.stdout.write("checked\n");
}, PERIOD_MS);
