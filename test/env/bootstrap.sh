#!/usr/bin/env bash
# Installs everything the tests need, outside the repository: a Python venv with moto and
# cfn-lint and one with Checkov; etcd, kube-apiserver, kube-controller-manager, kube-scheduler
# and kubectl built from the Go module proxy; the OCI registry and Helm 4 from the module proxy
# too; and the AICR CLI built offline from its source tarball; Argo CD from its release source;
# Redis from Debian.
# Idempotent; a warm machine finishes in seconds.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

need_cmd() { command -v "$1" >/dev/null 2>&1; }

install_os_packages() {
  local missing=()
  need_cmd openssl || missing+=(openssl)
  need_cmd curl || missing+=(curl)
  need_cmd setsid || missing+=(util-linux)
  # Argo CD's repo-server image ships git and gpg (its GPG key ring is set up at start).
  need_cmd gpg || missing+=(gnupg)
  need_cmd git || missing+=(git)
  [ ${#missing[@]} -eq 0 ] && return 0
  log "installing OS packages: ${missing[*]}"
  apt-get update -qq && apt-get install -y -qq "${missing[@]}" >/dev/null
}

install_python_tools() {
  local have=""
  [ -x "$VENV/bin/moto_server" ] && [ -x "$VENV/bin/cfn-lint" ] \
    && have=$("$VENV/bin/pip" show moto cfn-lint 2>/dev/null || true)
  case "$have" in
    *"Version: $MOTO_VERSION"*"Version: $CFN_LINT_VERSION"*) return 0 ;;
  esac
  log "creating Python venv with moto $MOTO_VERSION and cfn-lint $CFN_LINT_VERSION (about 1 minute)"
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install -q --disable-pip-version-check \
    "moto[server]==$MOTO_VERSION" "cfn-lint==$CFN_LINT_VERSION"
}

# Checkov in a venv of its own, keyed by its version (see CHECKOV_VENV in lib.sh); the stamp is
# written only once pip has finished, so an interrupted install is redone.
install_checkov() {
  [ -f "$CHECKOV_VENV/.installed" ] && [ -x "$CHECKOV_VENV/bin/checkov" ] && return 0
  log "creating Python venv with checkov $CHECKOV_VERSION (about 1 minute)"
  python3 -m venv "$CHECKOV_VENV"
  "$CHECKOV_VENV/bin/pip" install -q --disable-pip-version-check "checkov==$CHECKOV_VERSION"
  touch "$CHECKOV_VENV/.installed"
}

report_progress() {
  local name=$1 n=0 line
  while IFS= read -r line; do
    case "$line" in
      *' '* | *:*) printf '%s\n' "$line" >&2 ;;
      *) n=$((n + 1)); if [ $((n % 200)) -eq 0 ]; then log "  $name: $n packages compiled"; fi ;;
    esac
  done
  return 0
}

# go build -v names each package as it compiles; counting them is the progress report.
go_build() {
  local out=$1 pkg=$2 expected=$3 ldflags=${4:-}
  local tmp="$out.tmp.$$" status=0
  log "building $(basename "$out") ($expected packages; cold on 2 cores takes ${5:-a few minutes})"
  (cd "$TESTENV_DIR/tools" && GOTOOLCHAIN=local CGO_ENABLED=0 \
    go build -v -trimpath -ldflags "-s -w $ldflags" -o "$tmp" "$pkg" 2>&1) | report_progress "$(basename "$out")" \
    || status=$?
  [ "$status" -eq 0 ] && [ -x "$tmp" ] || { rm -f "$tmp"; die "go build of $pkg failed (see above)"; }
  mv "$tmp" "$out"
}

build_binaries() {
  mkdir -p "$BIN_DIR"
  local v="$K8S_VERSION" minor
  minor=$(echo "$v" | cut -d. -f2)
  local stamp="-X k8s.io/component-base/version.gitVersion=$v -X k8s.io/component-base/version.gitMajor=1"
  stamp="$stamp -X k8s.io/component-base/version.gitMinor=$minor -X k8s.io/component-base/version.gitTreeState=clean"
  stamp="$stamp -X k8s.io/client-go/pkg/version.gitVersion=$v -X k8s.io/client-go/pkg/version.gitMajor=1"
  stamp="$stamp -X k8s.io/client-go/pkg/version.gitMinor=$minor"
  [ -x "$BIN_DIR/etcd" ] || go_build "$BIN_DIR/etcd" go.etcd.io/etcd/server/v3 "~450" "" "about 1 minute"
  [ -x "$BIN_DIR/kube-apiserver" ] || go_build "$BIN_DIR/kube-apiserver" \
    k8s.io/kubernetes/cmd/kube-apiserver "~1500" "$stamp" "3-5 minutes"
  [ -x "$BIN_DIR/kubectl" ] || go_build "$BIN_DIR/kubectl" \
    k8s.io/kubernetes/cmd/kubectl "~300 more" "$stamp" "under a minute once kube-apiserver is built"
  [ -x "$BIN_DIR/kube-controller-manager" ] || go_build "$BIN_DIR/kube-controller-manager" \
    k8s.io/kubernetes/cmd/kube-controller-manager "~400 more" "$stamp" "about a minute once kube-apiserver is built"
  [ -x "$BIN_DIR/kube-scheduler" ] || go_build "$BIN_DIR/kube-scheduler" \
    k8s.io/kubernetes/cmd/kube-scheduler "~30 more" "$stamp" "seconds once the controller-manager is built"
}

# The Go module proxy does not serve AICR, so it is built from the release's source tarball,
# which carries vendor/ and needs no network. The version stamp makes the binary call itself
# by its release and point at the release's images rather than :latest.
build_aicr() {
  [ -x "$AICR_BIN_DIR/aicr" ] && return 0
  [ -f "$AICR_SOURCE" ] || die "AICR $AICR_VERSION source not found at $AICR_SOURCE.
  It is the git archive of tag $AICR_VERSION of the public NVIDIA/aicr repository, with vendor/.
  Put it there, or set TESTENV_AICR_SOURCE to its path (on a machine with internet access:
  git clone --branch $AICR_VERSION of that repository, then tar it as aicr-$AICR_VERSION/)."
  echo "$AICR_SOURCE_SHA256  $AICR_SOURCE" | sha256sum -c --status \
    || die "$AICR_SOURCE does not have the pinned sha256 $AICR_SOURCE_SHA256"
  local work="$CACHE/aicr/src.$$" status=0
  rm -rf "$work" && mkdir -p "$work" "$AICR_BIN_DIR"
  tar xzf "$AICR_SOURCE" -C "$work"
  log "building aicr $AICR_VERSION from source (~850 packages; cold on 2 cores takes 80 s idle, a few minutes when busy)"
  (cd "$work/aicr-$AICR_VERSION" && GOFLAGS=-mod=vendor GOPROXY=off GOTOOLCHAIN=local CGO_ENABLED=0 \
    go build -v -trimpath -ldflags "-s -w -X github.com/NVIDIA/aicr/pkg/cli.version=$AICR_VERSION \
      -X github.com/NVIDIA/aicr/pkg/cli.commit=$AICR_COMMIT -X github.com/NVIDIA/aicr/pkg/cli.date=$AICR_DATE" \
      -o "$AICR_BIN_DIR/aicr.tmp" ./cmd/aicr 2>&1) | report_progress aicr || status=$?
  rm -rf "$work"
  [ "$status" -eq 0 ] || { rm -f "$AICR_BIN_DIR/aicr.tmp"; die "go build of aicr failed (see above)"; }
  mv "$AICR_BIN_DIR/aicr.tmp" "$AICR_BIN_DIR/aicr"
}

# AICR's deployment validator, the program in its ghcr.io/nvidia/aicr-validators/deployment
# image, built from the same source tarball as the CLI (no network). The process node runs it
# for that image, beside chainsaw.
build_aicr_validator() {
  [ -x "$AICR_BIN_DIR/validators/deployment" ] && [ -d "$AICR_BIN_DIR/validators/testdata" ] && return 0
  [ -f "$AICR_SOURCE" ] || die "AICR $AICR_VERSION source not found at $AICR_SOURCE (see build_aicr)"
  # The image's /app/testdata beside the program: its checks read the Pod templates they create
  # (nvidia-smi's, say) from there, relative to the image's working directory /app.
  if [ ! -d "$AICR_BIN_DIR/validators/testdata" ]; then
    local data="$CACHE/aicr/validator-testdata.$$"
    rm -rf "$data" && mkdir -p "$data" "$AICR_BIN_DIR/validators"
    tar xzf "$AICR_SOURCE" -C "$data" --strip-components=3 "aicr-$AICR_VERSION/validators/deployment/testdata"
    mv "$data/testdata" "$AICR_BIN_DIR/validators/testdata" && rm -rf "$data"
  fi
  [ -x "$AICR_BIN_DIR/validators/deployment" ] && return 0
  local work="$CACHE/aicr/validator-src.$$" status=0
  rm -rf "$work" && mkdir -p "$work" "$AICR_BIN_DIR/validators"
  tar xzf "$AICR_SOURCE" -C "$work"
  log "building AICR's deployment validator (~500 packages, most shared with aicr; cold on 2 cores about 40 s)"
  (cd "$work/aicr-$AICR_VERSION" && GOFLAGS=-mod=vendor GOPROXY=off GOTOOLCHAIN=local CGO_ENABLED=0 \
    go build -v -trimpath -ldflags "-s -w" -o "$AICR_BIN_DIR/validators/deployment.tmp" ./validators/deployment 2>&1) \
    | report_progress deployment-validator || status=$?
  rm -rf "$work"
  [ "$status" -eq 0 ] || { rm -f "$AICR_BIN_DIR/validators/deployment.tmp"; die "go build of the deployment validator failed (see above)"; }
  mv "$AICR_BIN_DIR/validators/deployment.tmp" "$AICR_BIN_DIR/validators/deployment"
}

# chainsaw, which the deployment validator's expected-resources check runs, pinned in
# chainsaw/go.mod (v0.2.12, the only release the Go module proxy serves). Its test runner drives
# Go's testing package through an internal interface that Go 1.25 extended with ModulePath, so
# v0.2.12 no longer compiles as published: the build vendors it and adds that one method (it
# returns "", as chainsaw's ImportPath does), changing nothing else.
build_chainsaw() {
  [ -x "$CHAINSAW_BIN_DIR/chainsaw" ] && return 0
  local work="$CACHE/chainsaw/src.$$" status=0
  rm -rf "$work" && mkdir -p "$work" "$CHAINSAW_BIN_DIR"
  cp "$TESTENV_DIR/chainsaw/go.mod" "$TESTENV_DIR/chainsaw/go.sum" "$work/"
  log "building chainsaw (~900 packages; cold on 2 cores about 4 minutes)"
  (cd "$work" && GOTOOLCHAIN=local go mod vendor && chmod -R u+w vendor \
    && printf '\n// ModulePath: added for Go 1.25+ (see test/env/bootstrap.sh).\nfunc (*TestDeps) ModulePath() string { return "" }\n' \
      >> vendor/github.com/kyverno/chainsaw/pkg/runner/internal/test_deps.go \
    && GOFLAGS=-mod=vendor GOTOOLCHAIN=local CGO_ENABLED=0 \
      go build -v -trimpath -ldflags "-s -w" -o "$CHAINSAW_BIN_DIR/chainsaw.tmp" github.com/kyverno/chainsaw 2>&1) | report_progress chainsaw || status=$?
  rm -rf "$work"
  [ "$status" -eq 0 ] || { rm -f "$CHAINSAW_BIN_DIR/chainsaw.tmp"; die "go build of chainsaw failed (see above)"; }
  mv "$CHAINSAW_BIN_DIR/chainsaw.tmp" "$CHAINSAW_BIN_DIR/chainsaw"
}

# CNCF distribution v3, the OCI registry the tests push to, pinned in registry/go.mod.
build_registry() {
  [ -x "$REGISTRY_BIN_DIR/registry" ] && [ -x "$REGISTRY_BIN_DIR/htpasswd" ] && return 0
  mkdir -p "$REGISTRY_BIN_DIR"
  log "building the OCI registry (~400 packages; cold on 2 cores takes about 70 s)"
  local status=0
  (cd "$TESTENV_DIR/registry" && GOTOOLCHAIN=local CGO_ENABLED=0 \
    go build -v -trimpath -ldflags "-s -w" -o "$REGISTRY_BIN_DIR/registry.tmp" github.com/distribution/distribution/v3/cmd/registry 2>&1 \
    && GOTOOLCHAIN=local CGO_ENABLED=0 go build -trimpath -o "$REGISTRY_BIN_DIR/htpasswd.tmp" ./htpasswd 2>&1) | report_progress registry || status=$?
  [ "$status" -eq 0 ] || { rm -f "$REGISTRY_BIN_DIR"/*.tmp; die "go build of the registry failed (see above)"; }
  mv "$REGISTRY_BIN_DIR/registry.tmp" "$REGISTRY_BIN_DIR/registry"
  mv "$REGISTRY_BIN_DIR/htpasswd.tmp" "$REGISTRY_BIN_DIR/htpasswd"
}

# Helm 4, pinned in helm/go.mod; the version stamp is the one the release's own build sets.
build_helm() {
  [ -x "$HELM_BIN_DIR/helm" ] && return 0
  mkdir -p "$HELM_BIN_DIR"
  local version status=0
  version=$(cd "$TESTENV_DIR/helm" && GOTOOLCHAIN=local go list -m -f '{{.Version}}' helm.sh/helm/v4)
  log "building helm $version (~1100 packages; cold on 2 cores takes 3-5 minutes)"
  (cd "$TESTENV_DIR/helm" && GOTOOLCHAIN=local CGO_ENABLED=0 \
    go build -v -trimpath -ldflags "-s -w -X helm.sh/helm/v4/internal/version.version=$version -X helm.sh/helm/v4/internal/version.gitTreeState=clean" \
      -o "$HELM_BIN_DIR/helm.tmp" helm.sh/helm/v4/cmd/helm 2>&1) | report_progress helm || status=$?
  [ "$status" -eq 0 ] || { rm -f "$HELM_BIN_DIR/helm.tmp"; die "go build of helm failed (see above)"; }
  mv "$HELM_BIN_DIR/helm.tmp" "$HELM_BIN_DIR/helm"
}

# Argo CD's application controller and repo-server: one multi-call binary built from the
# release's source tarball (the Go module proxy serves every module it needs, but not Argo CD
# itself at a release). The web UI is left out of the tarball, so its embed gets placeholders.
# Argo CD's own install manifests are kept beside the binary: up.sh installs from them.
build_argocd() {
  [ -x "$ARGOCD_DIR/bin/argocd" ] && [ -x "$ARGOCD_DIR/bin/gpg-wrapper.sh" ] && [ -f "$ARGOCD_DIR/manifests/core-install.yaml" ] && return 0
  [ -f "$ARGOCD_SOURCE" ] || die "Argo CD $ARGOCD_VERSION source not found at $ARGOCD_SOURCE.
  It is the git archive of tag $ARGOCD_VERSION of the public argoproj/argo-cd repository (docs/,
  ui/ and test/e2e/ may be left out). Put it there, or set TESTENV_ARGOCD_SOURCE to its path
  (on a machine with internet access: git clone --branch $ARGOCD_VERSION of that repository,
  then tar it as argo-cd-$ARGOCD_VERSION/)."
  echo "$ARGOCD_SOURCE_SHA256  $ARGOCD_SOURCE" | sha256sum -c --status \
    || die "$ARGOCD_SOURCE does not have the pinned sha256 $ARGOCD_SOURCE_SHA256"
  local work="$CACHE/argocd/src.$$" status=0 src
  rm -rf "$work" && mkdir -p "$work" "$ARGOCD_DIR/bin" "$ARGOCD_DIR/manifests"
  tar xzf "$ARGOCD_SOURCE" -C "$work"
  # The archive's one top-level directory (argo-cd-v3.5.1/ in the pinned archive).
  src=$(find "$work" -mindepth 1 -maxdepth 1 -type d | head -n 1)
  [ -f "$src/go.mod" ] || die "$ARGOCD_SOURCE does not hold Argo CD's source in one top-level directory"
  mkdir -p "$src/ui/dist/app/assets/images/resources"
  : > "$src/ui/dist/app/assets/images/resources/.keep"
  echo '<html></html>' > "$src/ui/dist/app/index.html"
  printf 'package ui\n\nimport "embed"\n\n// Embedded holds placeholders: the tests run no web UI.\n//\n//go:embed dist/app\n//go:embed all:dist/app/assets/images/resources\nvar Embedded embed.FS\n' > "$src/ui/embed.go"
  log "building argocd $ARGOCD_VERSION from source (~2300 packages; cold on 2 cores takes 6-11 minutes)"
  (cd "$src" && GOTOOLCHAIN=local CGO_ENABLED=0 \
    go build -v -trimpath -ldflags "-s -w -X github.com/argoproj/argo-cd/v3/common.version=${ARGOCD_VERSION#v}" \
      -o "$ARGOCD_DIR/bin/argocd.tmp" ./cmd 2>&1) | report_progress argocd || status=$?
  # The release image's other programs at /usr/local/bin: the repo-server's GPG wrappers.
  [ "$status" -eq 0 ] && cp "$src/manifests/core-install.yaml" "$ARGOCD_DIR/manifests/" \
    && cp "$src/hack/gpg-wrapper.sh" "$src/hack/git-verify-wrapper.sh" "$ARGOCD_DIR/bin/" || status=1
  rm -rf "$work"
  [ "$status" -eq 0 ] || { rm -f "$ARGOCD_DIR/bin/argocd.tmp"; die "go build of argocd failed (see above)"; }
  # The names the release image gives the binary (its Dockerfile links them the same way).
  for name in argocd-application-controller argocd-repo-server argocd-cmp-server; do ln -sfn argocd "$ARGOCD_DIR/bin/$name"; done
  mv "$ARGOCD_DIR/bin/argocd.tmp" "$ARGOCD_DIR/bin/argocd"
}

# Redis for Argo CD's cache. Debian's redis-tools holds the server program (as redis-check-rdb,
# which serves when called redis-server) without installing a system service.
install_redis() {
  [ -x "$REDIS_DIR/redis-server" ] && "$REDIS_DIR/redis-server" --version >/dev/null 2>&1 && return 0
  if ! [ -x /usr/bin/redis-check-rdb ]; then
    log "installing Debian's redis-tools (Redis for Argo CD)"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends redis-tools >/dev/null
  fi
  mkdir -p "$REDIS_DIR"
  ln -sfn /usr/bin/redis-check-rdb "$REDIS_DIR/redis-server"
  "$REDIS_DIR/redis-server" --version >/dev/null || die "redis-server from redis-tools does not run"
}

install_node_packages() {
  # A node_modules linked from another checkout belongs to that checkout: npm ci here would
  # empty it through the link under everyone who shares it.
  [ -L "$REPO_ROOT/node_modules" ] && [ -x "$REPO_ROOT/node_modules/.bin/tsx" ] && return 0
  [ -x "$REPO_ROOT/node_modules/.bin/tsx" ] && [ "$REPO_ROOT/node_modules/.package-lock.json" -nt "$REPO_ROOT/package-lock.json" ] && return 0
  log "installing npm packages (npm ci)"
  (cd "$REPO_ROOT" && npm ci --no-audit --no-fund --loglevel=error)
}

start=$(date +%s)
mkdir -p "$CACHE"
install_os_packages
install_node_packages
install_python_tools
install_checkov
build_binaries
build_aicr
build_aicr_validator
build_chainsaw
build_registry
build_helm
build_argocd
install_redis
log "ready in $(($(date +%s) - start))s: binaries in $BIN_DIR, aicr and its deployment validator in $AICR_BIN_DIR, chainsaw in $CHAINSAW_BIN_DIR, registry in $REGISTRY_BIN_DIR, helm in $HELM_BIN_DIR, argocd in $ARGOCD_DIR, redis in $REDIS_DIR, venvs in $VENV and $CHECKOV_VENV"
