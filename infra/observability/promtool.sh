#!/usr/bin/env bash
# Prints the path of promtool (Prometheus's rule checker), building it from the Go module
# proxy into .tools/ the first time (several minutes: it is most of Prometheus). Callers
# running at once wait for one build. npm test starts it early, in the background.
set -euo pipefail
cd "$(dirname "$0")/../.."
version=v0.316.0
dir=.tools/promtool-$version
mkdir -p "$dir"
exec 9>"$dir/.lock"
flock 9
if [ ! -x "$dir/promtool" ]; then
  command -v go >/dev/null 2>&1 || { echo "Go is missing: promtool is built with it (install Go 1.24 or newer)." >&2; exit 1; }
  echo "building promtool $version from the Go module proxy (a few minutes the first time)" >&2
  GOBIN="$PWD/$dir" go install "github.com/prometheus/prometheus/cmd/promtool@$version" >&2
fi
echo "$PWD/$dir/promtool"
