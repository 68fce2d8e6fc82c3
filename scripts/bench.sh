#!/usr/bin/env bash
# Benchmarks against the real services: see bench/run.ts for what is measured.
set -euo pipefail
cd "$(dirname "$0")/.."
export TESTENV_STATE_LINK="$PWD/test/env/.state-bench"
bash test/env/bootstrap.sh
trap 'bash test/env/down.sh >/dev/null 2>&1' EXIT
bash test/env/up.sh
. "$TESTENV_STATE_LINK/env"
node_modules/.bin/node --import tsx bench/run.ts
