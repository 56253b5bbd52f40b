# Sourced by scripts/test.sh and scripts/start.sh: what both need before pnpm can run.
# Installs pnpm (into .tools/ when the machine lacks the pinned version) and, given Debian
# package names, installs any that are missing. Needs $root set to the repository.

PNPM_VERSION=10.34.9
export TURBO_TELEMETRY_DISABLED=1 NEXT_TELEMETRY_DISABLED=1 DO_NOT_TRACK=1
export PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1

log() { printf '\n\033[1m==> %s\033[0m\n' "$*"; }
die() { printf '\nberth: %s\n' "$*" >&2; exit 1; }

# ensure_debian_packages PKG...: installs the missing ones (as root), or says how to.
ensure_debian_packages() {
  local missing=() pkg
  for pkg in "$@"; do
    dpkg -s "$pkg" >/dev/null 2>&1 || missing+=("$pkg")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  [ "$(id -u)" = 0 ] || die "missing Debian packages: ${missing[*]}; install them with: sudo apt-get install -y ${missing[*]}"
  log "installing ${missing[*]} from Debian"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq || die "apt-get update failed"
  apt-get install -y -qq "${missing[@]}" >/dev/null || die "apt-get install ${missing[*]} failed"
}

ensure_pnpm() {
  [ "$(pnpm --version 2>/dev/null)" = "$PNPM_VERSION" ] && return 0
  if [ ! -x "$root/.tools/node_modules/.bin/pnpm" ]; then
    log "installing pnpm $PNPM_VERSION into .tools/"
    npm install --silent --no-save --prefix "$root/.tools" "pnpm@$PNPM_VERSION" || die "could not install pnpm with npm"
  fi
  export PATH="$root/.tools/node_modules/.bin:$PATH"
}

# ensure_egress_firewall: the group slirp4netns runs under for boxes with egress
# (BERTH_BOX_NETWORK=egress) and the nftables table that keeps that group's packets off every
# address of this machine and off link-local addresses (cloud metadata services), so a box's
# outbound connections reach the internet but nothing of the host. Root only; without root,
# slirp4netns or nft, boxes get no network and Berth says so once in its log.
ensure_egress_firewall() {
  [ "$(id -u)" = 0 ] || return 0
  command -v nft >/dev/null && command -v slirp4netns >/dev/null || return 0
  getent group berth-egress >/dev/null || groupadd --system berth-egress || return 0
  local gid
  gid=$(getent group berth-egress | cut -d: -f3)
  nft delete table inet berth_egress 2>/dev/null
  nft -f - <<NFT || printf 'berth: could not install the egress firewall; boxes get no network\n' >&2
table inet berth_egress {
  chain output {
    type filter hook output priority 0; policy accept;
    meta skgid $gid fib daddr type local reject
    meta skgid $gid ip daddr 169.254.0.0/16 reject
    meta skgid $gid ip6 daddr fe80::/10 reject
  }
}
NFT
}
