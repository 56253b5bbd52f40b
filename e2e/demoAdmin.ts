/**
 * The demo admin of the server the browser tests start: serve.ts hands the launcher this
 * password (BERTH_DEMO_PASSWORD), so the specs sign in without importing Berth's packages.
 * For tests only.
 */
export const demoAdmin = { email: "admin@berth.local", password: "e2e-demo-admin-password" };
