# Shared settings for the test-environment scripts. Sourced, never executed.
TESTENV_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO_ROOT=$(cd "$TESTENV_DIR/../.." && pwd)
# shellcheck source=versions.env
. "$TESTENV_DIR/versions.env"
CACHE=${TESTENV_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/aicr-testenv}
VENV="$CACHE/venv"
# Binaries are keyed by what built them, so a changed pin rebuilds and an unchanged one never does.
BIN_KEY=$(cat "$TESTENV_DIR/tools/go.mod" "$TESTENV_DIR/tools/go.sum" "$TESTENV_DIR/versions.env" | sha256sum | cut -c1-12)
BIN_DIR="$CACHE/bin/$BIN_KEY"
STATE_LINK=${TESTENV_STATE_LINK:-"$TESTENV_DIR/.state"}

log() { printf '[testenv] %s\n' "$*" >&2; }
die() { printf '[testenv] error: %s\n' "$*" >&2; exit 1; }
