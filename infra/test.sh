#!/usr/bin/env bash
# npm test: installs what is missing, brings the local infrastructure up, checks types,
# lint and formatting, builds the storefront, and runs every test suite against the
# real servers, the browser tests against the whole store among them. Fault tests stop a
# shared server, so they run last and on their own.
set -euo pipefail
cd "$(dirname "$0")/.."
source infra/lib.sh
started=$(date +%s)

ensure_dependencies
# promtool (the alert rules' checker) takes minutes to build the first time: it builds
# meanwhile, and the test that needs it waits for it.
mkdir -p test-output
bash infra/observability/promtool.sh >test-output/promtool.log 2>&1 &
step "chromium for the browser tests"
ensure_browser
step "infrastructure"
bash infra/infra.sh up
npx tsx infra/test/stale-topics.ts
step "type-check"
npx tsc -b
npx tsc -p tsconfig.test.json
step "lint and formatting"
npx eslint .
npx prettier --check . >/dev/null
step "storefront build"
npm run build -w frontend --silent

results=$(mktemp -d)
status=0
step "unit, component and system tests"
npx jest --selectProjects main --json --outputFile="$results/main.json" || status=1
if [ -f frontend/dist/index.html ]; then
  step "browser tests"
  npx jest --selectProjects browser --runInBand --json --outputFile="$results/browser.json" || status=1
else
  # The tally counts the missing results as a failure too.
  echo "the browser tests cannot run: the storefront build left no frontend/dist/index.html" >&2
  status=1
fi
step "fault tests"
# A kafkajs consumer that lived through a broker restart keeps a socket open after it has
# disconnected (tulios/kafkajs#1147), so this run is told to exit when its tests are done;
# the services themselves exit after stopping, so they are not affected.
npx jest --selectProjects fault --runInBand --forceExit --json --outputFile="$results/fault.json" || status=1

# The tally, after the failures again, each with the start of its message: a run's log is
# long, and its end is what a reader (or a CI page showing only the end) sees first.
node -e '
  const fs = require("fs");
  const path = require("path");
  const strip = (text) => text.replace(/\u001b\[[0-9;]*m/g, "");
  const head = (text) => strip(text).split("\n").filter((l) => !/^\s+at .*node_modules/.test(l)).slice(0, 12).map((l) => `    ${l}`).join("\n");
  let passed = 0, failed = 0;
  const failures = [];
  for (const f of process.argv.slice(1)) {
    if (!fs.existsSync(f)) { failed++; failures.push({ where: f, what: "no results" }); continue; }
    const r = JSON.parse(fs.readFileSync(f, "utf8"));
    passed += r.numPassedTests; failed += r.numFailedTests + r.numRuntimeErrorTestSuites;
    for (const suite of r.testResults) {
      const where = path.relative(".", suite.name);
      const tests = suite.assertionResults.filter((t) => t.status === "failed");
      for (const t of tests) failures.push({ where, what: t.fullName, message: t.failureMessages.join("\n") });
      if (!tests.length && suite.status === "failed") failures.push({ where, what: "the file failed", message: suite.message });
    }
  }
  // In full, then a line each, last, so that the shortest end of the log still names them all.
  if (failures.length) {
    const full = failures.map((x) => `${x.where}\n  ${x.what}${x.message ? `\n${head(x.message)}` : ""}`);
    console.log(`\nFailed:\n${full.join("\n\n")}\n\nIn short:\n${failures.map((x) => `  ${x.where} › ${x.what}`).join("\n")}`);
  }
  console.log(`\n${passed} passed, ${failed} failed`);
' "$results/main.json" "$results/browser.json" "$results/fault.json"
echo "(npm test took $(($(date +%s) - started)) s)"
rm -rf "$results"
exit $status
