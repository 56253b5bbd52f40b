#!/usr/bin/env bash
# `npm start`: installs, builds (turbo's cache makes a rebuild cheap), then runs Berth in the
# foreground until Ctrl-C. With no DATABASE_URL it keeps an embedded database in .data/.
# BERTH_SKIP_SETUP=1 skips straight to the launcher, for a checkout already installed and built.
#
# Signals: npm forwards SIGTERM and SIGINT to the one process it started. A plain `sh -c` there
# would take them and die, leaving the launcher (and its web server and worker) running; so the
# npm script is `exec bash scripts/start.sh` and this script `exec`s the launcher: npm's child
# IS the launcher, which stops everything it started.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
# shellcheck source=lib/bootstrap.sh
. "$root/scripts/lib/bootstrap.sh"

setup() {
  ensure_pnpm
  # Boxes run under bubblewrap, never silently without it: as root it is installed here; otherwise
  # the start stops and says how, unless BERTH_ALLOW_UNISOLATED=1 asks for unisolated boxes.
  if ! command -v bwrap >/dev/null && [ "${BERTH_ALLOW_UNISOLATED:-}" != 1 ]; then
    [ "$(id -u)" = 0 ] || die "bubblewrap is not installed, and local boxes never run without isolation: install it (sudo apt-get install -y bubblewrap), or start with BERTH_ALLOW_UNISOLATED=1 to run boxes unisolated"
    ensure_debian_packages bubblewrap
  fi
  # Boxes reach the internet (package installs, git clone) through slirp4netns, kept off this
  # machine's own addresses by a firewall; as root, what that needs is installed here.
  if [ "$(id -u)" = 0 ]; then
    ensure_debian_packages slirp4netns nftables
    ensure_egress_firewall
  fi
  log "install"
  pnpm install --frozen-lockfile --prefer-offline || die "pnpm install failed"
  log "build"
  pnpm turbo run build --output-logs=errors-only || die "the build failed; its errors are above"
}

if [ "${BERTH_SKIP_SETUP:-}" != 1 ]; then setup; fi
log "start"
exec node --import tsx apps/launcher/src/main.ts
