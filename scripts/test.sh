#!/usr/bin/env bash
# The whole test suite on a fresh machine: installs and builds what it needs (cached outside
# the repository), starts the real services, type-checks, lints, runs every test, and stops
# the services again. Node's test runner prints the closing "# pass N" / "# fail N" lines.
set -euo pipefail
cd "$(dirname "$0")/.."
bash test/env/bootstrap.sh
trap 'bash test/env/down.sh >/dev/null 2>&1' EXIT
bash test/env/up.sh
. test/env/.state/env
NODE=node_modules/.bin/node
# The type-check and the lint side by side: each keeps one of the 2 cores busy for most of a minute.
"$NODE" node_modules/.bin/tsc -p tsconfig.json --noEmit &
typecheck=$!
"$NODE" node_modules/.bin/eslint --max-warnings 0 .
wait "$typecheck"
"$NODE" node_modules/.bin/depcruise --config .dependency-cruiser.cjs shared functions cli bench scripts
# Integration files one at a time, each in its own process (they share one test cluster); the
# unit files together in one process (test/unit/all.ts). Node strips the types itself: a loader
# would add about 1.5 s to each process's start.
# shellcheck disable=SC2046
"$NODE" --test --test-concurrency=1 --test-timeout=600000 $(find test/integration -name '*.test.ts' | sort) test/unit/all.ts
