#!/usr/bin/env bash
# The whole test suite: `npm test` (and CI's .ci/run) runs exactly this.
# It installs what is missing, checks Postgres, then runs lint, typecheck and every test
# suite, timing each stage, and ends with the `N passed, N failed` line summed from the
# reports in ./reports. Every stage runs even after an earlier one failed, so one run
# shows every problem; the exit code is non-zero if anything failed.
set -uo pipefail
cd "$(dirname "$0")/.."
root=$PWD
# shellcheck source=lib/bootstrap.sh
. "$root/scripts/lib/bootstrap.sh"

# --- tools -----------------------------------------------------------------------------
# Under CI a missing tool is installed, never skipped: chromium for the browser tests,
# bubblewrap to isolate local boxes, slirp4netns and nftables for their egress network (with
# the firewall that keeps it off this machine's addresses), kubectl for kube-sim's kubectl
# tests (which fail rather than skip under CI), and the official Kubernetes Python client for
# kube-sim's Python client test (run with /usr/bin/python3, which Debian's package installs into).
# Any kubectl on PATH will do: Debian's kubernetes-client conflicts with
# the one some images ship (e.g. Google Cloud SDK's), so it is installed only when none is found.
ensure_debian_packages chromium bubblewrap slirp4netns nftables python3-kubernetes
ensure_egress_firewall
command -v kubectl >/dev/null || ensure_debian_packages kubernetes-client
ensure_pnpm

# --- Postgres --------------------------------------------------------------------------
pg_ready() { node -e '
  const net = require("node:net");
  const s = net.connect(5432, "127.0.0.1", () => { s.end(); process.exit(0); });
  s.on("error", () => process.exit(1));'; }
if ! pg_ready; then
  log "Postgres does not answer on 127.0.0.1:5432; starting it"
  command -v pg_ctlcluster >/dev/null || die "no Postgres on 127.0.0.1:5432 and no pg_ctlcluster to start one; set BERTH_TEST_DATABASE_URL to a server"
  pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | head -n 1)" main start || die "could not start Postgres"
  for _ in $(seq 1 30); do pg_ready && break; sleep 1; done
  pg_ready || die "Postgres did not come up on 127.0.0.1:5432"
fi

# --- stages ----------------------------------------------------------------------------
rm -rf "$root/reports"
mkdir -p "$root/reports/vitest" "$root/reports/playwright"
status=0

# stage NAME KIND COMMAND...: runs COMMAND, records its exit code and wall time.
stage() {
  local name=$1 kind=$2; shift 2
  log "$name"
  local start end code
  start=$(date +%s.%N)
  "$@"
  code=$?
  end=$(date +%s.%N)
  local seconds
  seconds=$(awk "BEGIN { printf \"%.1f\", $end - $start }")
  printf '{"name":"%s","kind":"%s","exitCode":%d,"seconds":%s}\n' "$name" "$kind" "$code" "$seconds" >>"$root/reports/stages.jsonl"
  printf -- '--- %s: exit %d in %ss\n' "$name" "$code" "$seconds"
  [ "$code" = 0 ] || status=1
  return "$code"
}

log "install"
pnpm install --frozen-lockfile --prefer-offline || die "pnpm install failed"
stage generate setup pnpm turbo run db:generate --output-logs=errors-only || die "prisma generate failed; nothing else can run"
stage lint check pnpm lint
stage typecheck check pnpm turbo run typecheck --continue --output-logs=errors-only
stage build setup pnpm turbo run build --output-logs=errors-only
stage unit tests pnpm turbo run test --concurrency=2 --continue
stage e2e tests pnpm turbo run test:e2e

# A suite that never wrote its report (it crashed, or turbo skipped it) is a failure too.
missing_reports() {
  local file report missing=0
  for file in apps/*/package.json packages/*/package.json tooling/*/package.json bench/package.json; do
    report=$(grep -o 'outputFile.json=[^" ]*' "$file" | head -n 1 | sed 's#.*/reports/vitest/##')
    [ -n "$report" ] || continue
    if [ ! -f "$root/reports/vitest/$report" ]; then
      echo "no report from $(dirname "$file") (reports/vitest/$report)"
      missing=1
    fi
  done
  return "$missing"
}
stage reports setup missing_reports

log "summary"
pnpm --silent exec tsx tooling/ci/src/summarize.ts "$root/reports" || status=1
exit "$status"
