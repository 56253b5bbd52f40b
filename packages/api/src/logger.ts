import { pino } from "pino";

/** The logging the API does: pino's Logger fits it, so does a test's recorder. */
export interface ApiLogger {
  error(details: object, message: string): void;
}

/** Structured JSON lines, as the launcher and worker write them. */
export function defaultApiLogger(): ApiLogger {
  return pino({ base: { service: "api", pid: process.pid } });
}
