/** The logging the local backend needs: pino's Logger fits it, so does a test's recorder. */
export interface LocalBackendLogger {
  info(details: object, message: string): void;
  warn(details: object, message: string): void;
  error(details: object, message: string): void;
}

export const silentLogger: LocalBackendLogger = {
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
};
