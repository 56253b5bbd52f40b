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
