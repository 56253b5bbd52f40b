/** Prefix of every per-file test database; the pid after it names the run that created it. */
export const TEST_DATABASE_PREFIX = "berth_test_";
/** Prefix of migrated template databases; the migrations fingerprint follows it. */
export const TEMPLATE_PREFIX = "berth_tpl_";

export function templateName(fingerprint: string): string {
  return `${TEMPLATE_PREFIX}${fingerprint}`;
}

export function testDatabaseName(pid: number, suffix: string): string {
  return `${TEST_DATABASE_PREFIX}${pid}_${suffix}`;
}

/** The pid encoded in a test database's name, if it has one. */
export function creatorPid(name: string): number | undefined {
  const match = new RegExp(`^${TEST_DATABASE_PREFIX}(\\d+)_`).exec(name);
  return match?.[1] === undefined ? undefined : Number(match[1]);
}
