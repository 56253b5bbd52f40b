#!/usr/bin/env bash
# `npm start`: installs, builds (turbo's cache makes a rebuild cheap), then runs Berth in the
# foreground until Ctrl-C. With no DATABASE_URL it keeps an embedded database in .data/.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
# shellcheck source=lib/bootstrap.sh
. "$root/scripts/lib/bootstrap.sh"

ensure_pnpm
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
log "start"
exec node --import tsx apps/launcher/src/main.ts
