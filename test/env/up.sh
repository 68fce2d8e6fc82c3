#!/usr/bin/env bash
# Starts etcd, kube-apiserver, kube-controller-manager, kube-scheduler, the process node
# (a stand-in kubelet, see node/), moto, the OCI registry, the registry proxy (a stand-in
# that answers 403 on demand, see proxy/) and a fixture Helm chart repository (a stand-in for
# the upstream ones AICR's recipes name, see charts/) on free loopback ports with state on tmpfs,
# installs Argo CD's application controller, repo-server and Redis from Argo CD's own manifests
# (see argocd/install.ts; their Pods run on the process node), then
# writes test/env/.state/env (variables the tests and the control plane read) and a kubeconfig
# at a stable path beside it. Run bootstrap.sh first. Stop everything with down.sh.
# Each process's PID is recorded the moment it starts, and the state directory is named in
# $STATE_LINK/state-dir before anything starts, so down.sh can stop exactly what was started
# even when this script is interrupted half-way.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

if [ -f "$STATE_LINK/env" ]; then
  . "$STATE_LINK/env"
  if kill -0 "$(cat "$TESTENV_STATE/kube-apiserver.pid" 2>/dev/null)" 2>/dev/null; then
    log "already up: KUBECONFIG=$KUBECONFIG"
    exit 0
  fi
  bash "$TESTENV_DIR/down.sh"
fi
# A run that was interrupted before it finished left its state directory named here.
[ -f "$STATE_LINK/state-dir" ] && bash "$TESTENV_DIR/down.sh"

for b in etcd kube-apiserver kube-controller-manager kube-scheduler kubectl; do
  [ -x "$BIN_DIR/$b" ] || die "$BIN_DIR/$b is missing: run test/env/bootstrap.sh first"
done
[ -x "$VENV/bin/moto_server" ] || die "moto is missing: run test/env/bootstrap.sh first"
[ -x "$AICR_BIN_DIR/aicr" ] || die "aicr is missing: run test/env/bootstrap.sh first"
[ -x "$AICR_BIN_DIR/validators/deployment" ] || die "AICR's deployment validator is missing: run test/env/bootstrap.sh first"
[ -x "$CHAINSAW_BIN_DIR/chainsaw" ] || die "chainsaw is missing: run test/env/bootstrap.sh first"
[ -x "$REGISTRY_BIN_DIR/registry" ] || die "the OCI registry is missing: run test/env/bootstrap.sh first"
[ -x "$HELM_BIN_DIR/helm" ] || die "helm is missing: run test/env/bootstrap.sh first"
[ -x "$ARGOCD_DIR/bin/argocd" ] || die "argocd is missing: run test/env/bootstrap.sh first"
[ -x "$REDIS_DIR/redis-server" ] || die "redis-server is missing: run test/env/bootstrap.sh first"

mkdir -p "$STATE_LINK"
STATE=$(mktemp -d /dev/shm/aicr-env.XXXXXX)
echo "$STATE" > "$STATE_LINK/state-dir"
read -r ETCD_PORT ETCD_PEER_PORT API_PORT MOTO_PORT KUBELET_PORT REGISTRY_PORT PROXY_PORT CHART_PORT \
  ARGOCD_REPO_PORT ARGOCD_REPO_METRICS_PORT ARGOCD_CONTROLLER_METRICS_PORT ARGOCD_REDIS_PORT < <(python3 -c '
import socket
socks=[socket.socket() for _ in range(12)]
for s in socks: s.bind(("127.0.0.1",0))
print(*[s.getsockname()[1] for s in socks])')
bash "$TESTENV_DIR/certs.sh" "$STATE/pki"
printf 'nobody-token,aicr-test-nobody,uid-nobody\n' > "$STATE/tokens.csv"
# The private registry's one account (a fresh password each run) in htpasswd form; the
# process node checks image pull credentials against it.
mkdir -p "$STATE/registry"
REGISTRY_USER=aicr-puller
REGISTRY_PASSWORD=$(python3 -c 'import secrets; print(secrets.token_hex(16))')
python3 -c 'import base64, hashlib, sys; print(sys.argv[1] + ":{SHA}" + base64.b64encode(hashlib.sha1(sys.argv[2].encode()).digest()).decode())' \
  "$REGISTRY_USER" "$REGISTRY_PASSWORD" > "$STATE/registry/htpasswd"
# The real OCI registry: same account (bcrypt, as it requires), plain HTTP on loopback,
# storage in the state directory on tmpfs.
"$REGISTRY_BIN_DIR/htpasswd" "$REGISTRY_USER" "$REGISTRY_PASSWORD" > "$STATE/registry/htpasswd.bcrypt"
cat > "$STATE/registry/config.yml" <<YAML
version: 0.1
log:
  level: warn
  accesslog:
    disabled: true
storage:
  filesystem:
    rootdirectory: $STATE/registry/data
  delete:
    enabled: true
http:
  addr: 127.0.0.1:$REGISTRY_PORT
  secret: $(python3 -c 'import secrets; print(secrets.token_hex(16))')
auth:
  htpasswd:
    realm: aicr-testenv-registry
    path: $STATE/registry/htpasswd.bcrypt
YAML

start_bg() { # name, command...
  local name=$1 interrupted=0; shift
  log "starting $name"
  # A Ctrl-C between the start and the pid file would leave a process down.sh cannot find
  # (setsid puts it out of reach of the terminal's signal): record the pid first, then stop.
  trap 'interrupted=1' INT TERM
  setsid "$@" >"$STATE/$name.log" 2>&1 < /dev/null &
  echo $! > "$STATE/$name.pid"
  trap - INT TERM
  [ "$interrupted" = 0 ] || exit 130
}
wait_for() { # name, seconds, probe command...
  local name=$1 secs=$2; shift 2
  for _ in $(seq $((secs * 4))); do
    "$@" >/dev/null 2>&1 && return 0
    kill -0 "$(cat "$STATE/$name.pid")" 2>/dev/null || { tail -20 "$STATE/$name.log" >&2; die "$name exited"; }
    sleep 0.25
  done
  tail -20 "$STATE/$name.log" >&2
  die "$name was not ready after ${secs}s (log: $STATE/$name.log)"
}

# The controllers AICR's Jobs and validation rely on: Jobs, their TTL, cascading deletes,
# namespaces, ServiceAccounts and their tokens, quotas, the workloads validation checks, the
# kube-root-ca.crt ConfigMap every Pod's token volume reads, and aggregated view/edit roles.
# Node lifecycle stays off: the process node's Nodes are Ready for as long as they exist.
KCM_CONTROLLERS=job-controller,ttl-after-finished-controller,garbage-collector-controller
KCM_CONTROLLERS=$KCM_CONTROLLERS,namespace-controller,serviceaccount-controller,serviceaccount-token-controller
KCM_CONTROLLERS=$KCM_CONTROLLERS,resourcequota-controller,deployment-controller,replicaset-controller
KCM_CONTROLLERS=$KCM_CONTROLLERS,daemonset-controller,root-ca-certificate-publisher-controller
KCM_CONTROLLERS=$KCM_CONTROLLERS,clusterrole-aggregation-controller
# StatefulSets: Argo CD's application controller runs as one.
KCM_CONTROLLERS=$KCM_CONTROLLERS,statefulset-controller

ETCD_URL="http://127.0.0.1:$ETCD_PORT"
start_bg etcd "$BIN_DIR/etcd" --name t --data-dir "$STATE/etcd" \
  --listen-client-urls "$ETCD_URL" --advertise-client-urls "$ETCD_URL" \
  --listen-peer-urls "http://127.0.0.1:$ETCD_PEER_PORT" \
  --initial-advertise-peer-urls "http://127.0.0.1:$ETCD_PEER_PORT" \
  --initial-cluster "t=http://127.0.0.1:$ETCD_PEER_PORT" \
  --unsafe-no-fsync --log-level warn
wait_for etcd 30 curl -fs "$ETCD_URL/health"

PKI="$STATE/pki"
start_bg moto "$VENV/bin/moto_server" -H 127.0.0.1 -p "$MOTO_PORT"

# The audit log is never rotated during a run (0 would mean 100 MB, which the whole suite
# passes): tests count requests since a byte offset in it.
start_bg kube-apiserver "$BIN_DIR/kube-apiserver" \
  --etcd-servers "$ETCD_URL" \
  --bind-address 127.0.0.1 --advertise-address 127.0.0.1 --secure-port "$API_PORT" \
  --tls-cert-file "$PKI/serving.crt" --tls-private-key-file "$PKI/serving.key" \
  --client-ca-file "$PKI/ca.crt" --token-auth-file "$STATE/tokens.csv" \
  --service-account-issuer "https://127.0.0.1:$API_PORT" \
  --service-account-key-file "$PKI/sa.pub" --service-account-signing-key-file "$PKI/sa.key" \
  --service-cluster-ip-range 10.0.0.0/24 --authorization-mode RBAC \
  --allow-privileged=true \
  --kubelet-client-certificate "$PKI/apiserver-kubelet-client.crt" --kubelet-client-key "$PKI/apiserver-kubelet-client.key" \
  --kubelet-certificate-authority "$PKI/ca.crt" --kubelet-preferred-address-types InternalIP \
  --audit-policy-file "$TESTENV_DIR/audit-policy.yaml" --audit-log-path "$STATE/audit.log" \
  --audit-log-format json --audit-log-mode blocking --audit-log-maxsize 16384 \
  ${TESTENV_APISERVER_EXTRA_FLAGS:-}
wait_for kube-apiserver 120 curl -fs --cacert "$PKI/ca.crt" "https://127.0.0.1:$API_PORT/readyz"


b64() { base64 -w0 < "$1"; }
kubeconfig() { # file, then user=cert-name pairs; the first user is the current context
  local file=$1 first=""; shift
  { printf 'apiVersion: v1\nkind: Config\nclusters:\n- name: aicr-testenv\n  cluster:\n'
    printf '    server: https://127.0.0.1:%s\n    certificate-authority-data: %s\nusers:\n' "$API_PORT" "$(b64 "$PKI/ca.crt")"
    for pair in "$@"; do
      printf -- '- name: %s\n  user:\n    client-certificate-data: %s\n    client-key-data: %s\n' \
        "${pair%%=*}" "$(b64 "$PKI/${pair#*=}.crt")" "$(b64 "$PKI/${pair#*=}.key")"
    done
    printf 'contexts:\n'
    for pair in "$@"; do
      local user=${pair%%=*} ctx=${pair%%=*}
      [ "$user" = aicr-test-admin ] && ctx=aicr-testenv
      printf -- '- name: %s\n  context: {cluster: aicr-testenv, user: %s}\n' "$ctx" "$user"
      [ -n "$first" ] || first=$ctx
    done
    printf 'current-context: %s\n' "$first"
  } > "$file"
  chmod 600 "$file"
}
# A stable path, so a second shell's KUBECONFIG keeps working across restarts.
KUBECONFIG_FILE="$STATE_LINK/kubeconfig"
kubeconfig "$KUBECONFIG_FILE" aicr-test-admin=admin aicr-control-plane=controlplane
kubeconfig "$STATE/kube-controller-manager.kubeconfig" kube-controller-manager=kube-controller-manager
kubeconfig "$STATE/kube-scheduler.kubeconfig" kube-scheduler=kube-scheduler
kubeconfig "$STATE/process-node.kubeconfig" aicr-testenv-process-node=process-node
KUBECTL=("$BIN_DIR/kubectl" --kubeconfig "$KUBECONFIG_FILE")

# Leader election is off (one replica each) and neither serves HTTPS (--secure-port 0), so
# they listen on nothing at all; they only talk to the loopback API server.
start_bg kube-controller-manager "$BIN_DIR/kube-controller-manager" \
  --kubeconfig "$STATE/kube-controller-manager.kubeconfig" --secure-port 0 --leader-elect=false \
  --controllers "$KCM_CONTROLLERS" --use-service-account-credentials \
  --service-account-private-key-file "$PKI/sa.key" --root-ca-file "$PKI/ca.crt"
start_bg kube-scheduler "$BIN_DIR/kube-scheduler" \
  --kubeconfig "$STATE/kube-scheduler.kubeconfig" --secure-port 0 --leader-elect=false
ARGOCD_INSTALL=("$REPO_ROOT/node_modules/.bin/node" --import tsx "$TESTENV_DIR/argocd/install.ts"
  --manifests "$ARGOCD_DIR/manifests/core-install.yaml" --repo-server-port "$ARGOCD_REPO_PORT"
  --repo-server-metrics-port "$ARGOCD_REPO_METRICS_PORT" --controller-metrics-port "$ARGOCD_CONTROLLER_METRICS_PORT"
  --redis-port "$ARGOCD_REDIS_PORT")
"${KUBECTL[@]}" apply --server-side -f "$TESTENV_DIR/process-node-rbac.yaml" >/dev/null
# Argo CD's CRDs, from the same release as its controller.
"${ARGOCD_INSTALL[@]}" --part crds | "${KUBECTL[@]}" apply --server-side -f - >/dev/null
start_bg process-node env TESTENV_STATE="$STATE" TESTENV_BIN="$BIN_DIR" TESTENV_AICR_BIN_DIR="$AICR_BIN_DIR" \
  TESTENV_ARGOCD_DIR="$ARGOCD_DIR" TESTENV_HELM_BIN_DIR="$HELM_BIN_DIR" TESTENV_REDIS_DIR="$REDIS_DIR" \
  TESTENV_CHAINSAW_BIN_DIR="$CHAINSAW_BIN_DIR" KUBECONFIG="$STATE/process-node.kubeconfig" TESTENV_K8S_VERSION="$K8S_VERSION" TESTENV_KUBELET_PORT="$KUBELET_PORT" \
  TESTENV_REGISTRY_HTPASSWD="$STATE/registry/htpasswd" "$REPO_ROOT/node_modules/.bin/node" --import tsx "$TESTENV_DIR/node/main.ts" --default-nodes
start_bg registry "$REGISTRY_BIN_DIR/registry" serve "$STATE/registry/config.yml"
# The test knobs' control files (see knobFiles.ts) live here; the proxy reads its one per request.
mkdir -p "$STATE/test-knobs/argocd"
# Argo CD itself: its Pods run on the process node as soon as it is up.
"${ARGOCD_INSTALL[@]}" | "${KUBECTL[@]}" apply --server-side -f - >/dev/null
"${KUBECTL[@]}" wait --for=condition=Established crd/appprojects.argoproj.io --timeout=30s >/dev/null
"${ARGOCD_INSTALL[@]}" --part project | "${KUBECTL[@]}" apply --server-side -f - >/dev/null
start_bg registry-proxy "$REPO_ROOT/node_modules/.bin/node" --import tsx "$TESTENV_DIR/proxy/main.ts" \
  --port "$PROXY_PORT" --upstream "127.0.0.1:$REGISTRY_PORT" --denial-file "$STATE/test-knobs/registry-denial.json" \
  --audit-file "$STATE/registry-proxy-writes.log"
# Fixture charts for every chart and version AICR's recipes name, and the AICR --data overlay
# that points the recipes at them (test configuration: the aicr wrapper in Jobs adds --data),
# both made from the recipe data of the AICR source the build uses.
[ -f "$AICR_SOURCE" ] || die "the AICR source $AICR_SOURCE is missing (set TESTENV_AICR_SOURCE)"
mkdir -p "$STATE/aicr-recipes"
tar -xzf "$AICR_SOURCE" -C "$STATE/aicr-recipes" --strip-components=2 --wildcards '*/recipes/registry.yaml' '*/recipes/overlays/*' '*/recipes/components/*/manifests/*'
start_bg chart-repo "$REPO_ROOT/node_modules/.bin/node" --import tsx "$TESTENV_DIR/charts/main.ts" \
  --port "$CHART_PORT" --recipes "$STATE/aicr-recipes" --state "$STATE"
wait_for moto 60 curl -fs "http://127.0.0.1:$MOTO_PORT/moto-api/"
wait_for registry 30 curl -fs -u "$REGISTRY_USER:$REGISTRY_PASSWORD" "http://127.0.0.1:$REGISTRY_PORT/v2/"
wait_for registry-proxy 60 curl -fs -u "$REGISTRY_USER:$REGISTRY_PASSWORD" "http://127.0.0.1:$PROXY_PORT/v2/"
wait_for chart-repo 60 curl -fs "http://127.0.0.1:$CHART_PORT/index.yaml"
wait_for process-node 60 test -f "$STATE/process-node.ready"
# Ready as soon as their processes run (the process node has no probes); bounded, like every wait here.
argocd_down() { "${KUBECTL[@]}" -n argocd get statefulset,deployments,pods -o wide >&2 || true; die "$1"; }
"${KUBECTL[@]}" -n argocd wait --for=jsonpath='{.status.readyReplicas}'=1 statefulset/argocd-application-controller --timeout=120s >/dev/null \
  && "${KUBECTL[@]}" -n argocd wait --for=condition=Available deployment/argocd-redis deployment/argocd-repo-server --timeout=120s >/dev/null \
  || argocd_down "Argo CD's Pods were not ready after 120s"
# Listening, not only started: the repo-server's health endpoint and the controller's metrics.
for _ in $(seq 120); do
  curl -fs "http://127.0.0.1:$ARGOCD_REPO_METRICS_PORT/healthz" >/dev/null 2>&1 \
    && curl -fs "http://127.0.0.1:$ARGOCD_CONTROLLER_METRICS_PORT/metrics" >/dev/null 2>&1 && break
  sleep 0.5
done
curl -fs "http://127.0.0.1:$ARGOCD_REPO_METRICS_PORT/healthz" >/dev/null 2>&1 || argocd_down "Argo CD's repo-server does not answer on 127.0.0.1:$ARGOCD_REPO_METRICS_PORT"
for name in kube-controller-manager kube-scheduler; do
  kill -0 "$(cat "$STATE/$name.pid")" 2>/dev/null || { tail -20 "$STATE/$name.log" >&2; die "$name exited"; }
done

cat > "$STATE_LINK/env" <<ENV
export TESTENV_STATE=$STATE
export KUBECONFIG=$KUBECONFIG_FILE
export TESTENV_BIN=$BIN_DIR
export TESTENV_VENV=$VENV
export TESTENV_ETCD_URL=$ETCD_URL
export TESTENV_AUDIT_LOG=$STATE/audit.log
export TESTENV_K8S_VERSION=$K8S_VERSION
export TESTENV_AICR_BIN=$AICR_BIN_DIR/aicr
export TESTENV_HELM=$HELM_BIN_DIR/helm
export TESTENV_KUBELET_PORT=$KUBELET_PORT
export TESTENV_NOBODY_TOKEN=nobody-token
export TESTENV_PRIVATE_REGISTRY=registry.testenv.aicr.local
export TESTENV_REGISTRY_USER=$REGISTRY_USER
export TESTENV_REGISTRY_PASSWORD=$REGISTRY_PASSWORD
export TESTENV_REGISTRY=127.0.0.1:$REGISTRY_PORT
export TESTENV_REGISTRY_PROXY=127.0.0.1:$PROXY_PORT
export TESTENV_REGISTRY_BIN=$REGISTRY_BIN_DIR/registry
export TESTENV_CHART_REPO=http://127.0.0.1:$CHART_PORT
export TESTENV_ARGOCD_DIR=$ARGOCD_DIR
export TESTENV_ARGOCD_REPO_SERVER=127.0.0.1:$ARGOCD_REPO_PORT
export TESTENV_ARGOCD_CONTROLLER_METRICS=http://127.0.0.1:$ARGOCD_CONTROLLER_METRICS_PORT/metrics
export PATH=$BIN_DIR:\$PATH
export AWS_ENDPOINT_URL=http://127.0.0.1:$MOTO_PORT
export AWS_REGION=us-east-1
export AWS_ACCESS_KEY_ID=testing
export AWS_SECRET_ACCESS_KEY=testing
export SLS_TELEMETRY_DISABLED=1
export SLS_NOTIFICATIONS_MODE=off
ENV
log "up: kube-apiserver https://127.0.0.1:$API_PORT, etcd $ETCD_URL, moto http://127.0.0.1:$MOTO_PORT"
log "OCI registry: http://127.0.0.1:$REGISTRY_PORT (htpasswd account $REGISTRY_USER; password in $STATE_LINK/env)"
log "registry proxy (a test stand-in that answers 403 on demand): http://127.0.0.1:$PROXY_PORT"
log "fixture chart repository (a test stand-in for upstream chart repositories): http://127.0.0.1:$CHART_PORT"
log "Nodes are simulated: the process node runs their Pods as local processes (see test/env/node/)"
log "Argo CD $ARGOCD_VERSION is real: its application controller, repo-server and Redis (kubectl -n argocd get pods), installed from its own manifests; their Pods run on the simulated Nodes"
log "kubectl: $BIN_DIR/kubectl --kubeconfig $KUBECONFIG_FILE get nodes"
