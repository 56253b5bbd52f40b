// The domain's only public entry. The lease, spawner, backends and box services arrive with
// their issues; today it holds the Clock port they all take time from.
export { systemClock } from "./clock/clock.ts";
export type { Clock } from "./clock/clock.ts";
