# Shared by start.sh and test.sh: run from the repository root.

step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }

# Installs the npm dependencies when they are missing or older than the lockfile.
ensure_dependencies() {
  command -v node >/dev/null 2>&1 || { echo "Node.js is missing: install Node.js 20 or newer and re-run." >&2; exit 1; }
  # A new or changed fix in infra/patches is applied by npm ci's postinstall too.
  if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ] ||
    [ -n "$(find infra/patches -newer node_modules/.package-lock.json 2>/dev/null)" ]; then
    step "installing npm dependencies"
    npm ci --no-audit --no-fund --loglevel=error
  fi
}

# Installs Debian's chromium, which the browser tests drive, when it is missing.
ensure_browser() {
  [ -x /usr/bin/chromium ] && return 0
  command -v apt-get >/dev/null 2>&1 || {
    echo "chromium is missing and there is no apt-get to install it: install chromium at /usr/bin/chromium and re-run." >&2
    exit 1
  }
  # sudo drops the environment, so DEBIAN_FRONTEND goes through env.
  local as_root=()
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null 2>&1 || { echo "installing chromium needs root: re-run as root or install sudo." >&2; exit 1; }
    as_root=(sudo)
  fi
  echo "installing chromium from Debian's packages"
  "${as_root[@]}" apt-get update
  "${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends chromium
}
