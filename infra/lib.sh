# Shared by start.sh and test.sh: run from the repository root.

step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }

# Installs the npm dependencies when they are missing or older than the lockfile.
ensure_dependencies() {
  command -v node >/dev/null 2>&1 || { echo "Node.js is missing: install Node.js 20 or newer and re-run." >&2; exit 1; }
  if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
    step "installing npm dependencies"
    npm ci --no-audit --no-fund --loglevel=error
  fi
}
