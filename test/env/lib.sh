# Shared settings for the test-environment scripts. Sourced, never executed.
TESTENV_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO_ROOT=$(cd "$TESTENV_DIR/../.." && pwd)
# shellcheck source=versions.env
. "$TESTENV_DIR/versions.env"
CACHE=${TESTENV_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/aicr-testenv}
VENV="$CACHE/venv"
# Checkov, the outside scanner the suite runs on the packaged template and the rendered chart
# (SEC-10). Pinned here, not in versions.env, whose content keys the Go builds. It has a venv of
# its own: it pins boto3, botocore and networkx below what moto and cfn-lint run on, and one venv
# would move moto onto older AWS service models.
CHECKOV_VERSION=3.3.30
CHECKOV_VENV="$CACHE/venv-checkov/$CHECKOV_VERSION"
# Binaries are keyed by what built them, so a changed pin rebuilds and an unchanged one never does.
BIN_KEY=$(cat "$TESTENV_DIR/tools/go.mod" "$TESTENV_DIR/tools/go.sum" "$TESTENV_DIR/versions.env" | sha256sum | cut -c1-12)
BIN_DIR="$CACHE/bin/$BIN_KEY"
# The OCI registry (CNCF distribution) and the helper that hashes its password, from their own module.
REGISTRY_KEY=$(cat "$TESTENV_DIR/registry/go.mod" "$TESTENV_DIR/registry/go.sum" "$TESTENV_DIR/registry/htpasswd/main.go" | sha256sum | cut -c1-12)
REGISTRY_BIN_DIR="$CACHE/registry/$REGISTRY_KEY"
# Helm 4, which installs the control plane's chart in tests and local mode, from its own module.
HELM_KEY=$(cat "$TESTENV_DIR/helm/go.mod" "$TESTENV_DIR/helm/go.sum" | sha256sum | cut -c1-12)
HELM_BIN_DIR="$CACHE/helm/$HELM_KEY"
# chainsaw, which AICR's deployment validator runs, from its own module.
CHAINSAW_KEY=$(cat "$TESTENV_DIR/chainsaw/go.mod" "$TESTENV_DIR/chainsaw/go.sum" | sha256sum | cut -c1-12)
CHAINSAW_BIN_DIR="$CACHE/chainsaw/$CHAINSAW_KEY"
# Upstream inputs no package registry serves here: the AICR and Argo CD sources. They are
# read in place (never copied into the repository); each path can be overridden.
# Looked for beside this checkout or any folder above it, then beside the checkout this one was
# cloned from (a clean clone made elsewhere, as CI makes), else TESTENV_THIRD_PARTY.
find_third_party() {
  local d=$REPO_ROOT origin
  while [ "$d" != "/" ]; do
    [ -d "$d/../shared/third_party" ] && { (cd "$d/../shared/third_party" && pwd); return; }
    d=$(dirname "$d")
  done
  origin=$(git -C "$REPO_ROOT" config --get remote.origin.url 2>/dev/null || true)
  origin=${origin#file://}
  if [ -n "$origin" ] && [ -d "$origin/../shared/third_party" ]; then (cd "$origin/../shared/third_party" && pwd); return; fi
  echo "$REPO_ROOT/../shared/third_party"
}
THIRD_PARTY=${TESTENV_THIRD_PARTY:-$(find_third_party)}
AICR_SOURCE=${TESTENV_AICR_SOURCE:-"$THIRD_PARTY/aicr/aicr-$AICR_VERSION-src.tar.gz"}
ARGOCD_SOURCE=${TESTENV_ARGOCD_SOURCE:-"$THIRD_PARTY/argo-cd/argo-cd-$ARGOCD_VERSION-src.tar.gz"}
AICR_BIN_DIR="$CACHE/aicr/$AICR_VERSION-${AICR_SOURCE_SHA256:0:12}"
# The Argo CD binary (bin/argocd and the names it answers to), and the release's install
# manifests (manifests/core-install.yaml) taken from the same source.
ARGOCD_DIR="$CACHE/argocd/$ARGOCD_VERSION-${ARGOCD_SOURCE_SHA256:0:12}"
# Redis for Argo CD: Debian's redis-tools carries the server program; a link names it redis-server.
REDIS_DIR="$CACHE/redis"
STATE_LINK=${TESTENV_STATE_LINK:-"$TESTENV_DIR/.state"}

log() { printf '[testenv] %s\n' "$*" >&2; }
die() { printf '[testenv] error: %s\n' "$*" >&2; exit 1; }
