#!/usr/bin/env bash
# The whole test suite on a fresh machine: installs and builds what it needs (cached outside
# the repository), starts the real services, type-checks, lints, runs every test, and stops
# the services again. Node's test runner prints the closing "# pass N" / "# fail N" lines.
set -euo pipefail
cd "$(dirname "$0")/.."
bash test/env/bootstrap.sh
# Test files run side by side, each on a test environment of its own (test/helpers/environmentSlot.ts
# gives each file's process one): most files own the cluster-scoped runtime while they run.
LANES=${TESTENV_LANES:-2}
links=()
for lane in $(seq "$LANES"); do
  if [ "$lane" -eq 1 ]; then links+=("$PWD/test/env/.state"); else links+=("$PWD/test/env/.state-$lane"); fi
done
down_all() {
  for link in "${links[@]}"; do TESTENV_STATE_LINK="$link" bash test/env/down.sh >/dev/null 2>&1; done
}
trap down_all EXIT
for link in "${links[@]}"; do TESTENV_STATE_LINK="$link" bash test/env/up.sh; done
. test/env/.state/env
TESTENV_ENVIRONMENTS=$(IFS=:; echo "${links[*]}")
export TESTENV_ENVIRONMENTS
NODE=node_modules/.bin/node
# The type-check and the lint (eslint, then the formatter's check) side by side: each keeps one of the 2 cores busy for most of a minute.
"$NODE" node_modules/.bin/tsc -p tsconfig.json --noEmit &
typecheck=$!
"$NODE" node_modules/.bin/eslint --max-warnings 0 .
"$NODE" node_modules/.bin/prettier --check --log-level warn .
wait "$typecheck"
"$NODE" node_modules/.bin/depcruise --config .dependency-cruiser.cjs shared functions cli harness bench scripts
# Integration files in their own processes, one per environment at a time; the unit files together
# in one process (test/unit/all.ts). Node strips the types itself: a loader would add about 1.5 s
# to each process's start.
# shellcheck disable=SC2046
"$NODE" --import ./test/helpers/environmentSlot.ts --test --test-concurrency="$LANES" --test-timeout=600000 $(find test/integration -name '*.test.ts' | sort) test/unit/all.ts
