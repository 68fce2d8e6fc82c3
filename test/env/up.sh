#!/usr/bin/env bash
# Starts etcd, kube-apiserver and moto on free loopback ports with state on tmpfs, then
# writes test/env/.state/env (variables the tests and the control plane read) and a kubeconfig.
# Run bootstrap.sh first. Stop everything with down.sh.
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

for b in etcd kube-apiserver kubectl; do
  [ -x "$BIN_DIR/$b" ] || die "$BIN_DIR/$b is missing: run test/env/bootstrap.sh first"
done
[ -x "$VENV/bin/moto_server" ] || die "moto is missing: run test/env/bootstrap.sh first"

STATE=$(mktemp -d /dev/shm/aicr-env.XXXXXX)
read -r ETCD_PORT ETCD_PEER_PORT API_PORT MOTO_PORT < <(python3 -c '
import socket
socks=[socket.socket() for _ in range(4)]
for s in socks: s.bind(("127.0.0.1",0))
print(*[s.getsockname()[1] for s in socks])')
bash "$TESTENV_DIR/certs.sh" "$STATE/pki"
printf 'nobody-token,aicr-test-nobody,uid-nobody\n' > "$STATE/tokens.csv"

start_bg() { # name, command...
  local name=$1; shift
  setsid "$@" >"$STATE/$name.log" 2>&1 < /dev/null &
  echo $! > "$STATE/$name.pid"
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

start_bg kube-apiserver "$BIN_DIR/kube-apiserver" \
  --etcd-servers "$ETCD_URL" \
  --bind-address 127.0.0.1 --advertise-address 127.0.0.1 --secure-port "$API_PORT" \
  --tls-cert-file "$PKI/serving.crt" --tls-private-key-file "$PKI/serving.key" \
  --client-ca-file "$PKI/ca.crt" --token-auth-file "$STATE/tokens.csv" \
  --service-account-issuer "https://127.0.0.1:$API_PORT" \
  --service-account-key-file "$PKI/sa.pub" --service-account-signing-key-file "$PKI/sa.key" \
  --service-cluster-ip-range 10.0.0.0/24 --authorization-mode RBAC \
  --disable-admission-plugins ServiceAccount --allow-privileged=true \
  --audit-policy-file "$TESTENV_DIR/audit-policy.yaml" --audit-log-path "$STATE/audit.log" \
  --audit-log-format json --audit-log-mode blocking --audit-log-maxsize 0 \
  ${TESTENV_APISERVER_EXTRA_FLAGS:-}
wait_for kube-apiserver 120 curl -fs --cacert "$PKI/ca.crt" "https://127.0.0.1:$API_PORT/readyz"
wait_for moto 60 curl -fs "http://127.0.0.1:$MOTO_PORT/moto-api/"

b64() { base64 -w0 < "$1"; }
cat > "$STATE/kubeconfig" <<KUBECONFIG
apiVersion: v1
kind: Config
clusters:
- name: aicr-testenv
  cluster:
    server: https://127.0.0.1:$API_PORT
    certificate-authority-data: $(b64 "$PKI/ca.crt")
users:
- name: aicr-test-admin
  user:
    client-certificate-data: $(b64 "$PKI/admin.crt")
    client-key-data: $(b64 "$PKI/admin.key")
- name: aicr-control-plane
  user:
    client-certificate-data: $(b64 "$PKI/controlplane.crt")
    client-key-data: $(b64 "$PKI/controlplane.key")
contexts:
- name: aicr-testenv
  context: {cluster: aicr-testenv, user: aicr-test-admin}
- name: aicr-control-plane
  context: {cluster: aicr-testenv, user: aicr-control-plane}
current-context: aicr-testenv
KUBECONFIG
chmod 600 "$STATE/kubeconfig"

mkdir -p "$STATE_LINK"
cat > "$STATE_LINK/env" <<ENV
export TESTENV_STATE=$STATE
export KUBECONFIG=$STATE/kubeconfig
export TESTENV_BIN=$BIN_DIR
export TESTENV_VENV=$VENV
export TESTENV_ETCD_URL=$ETCD_URL
export TESTENV_AUDIT_LOG=$STATE/audit.log
export TESTENV_K8S_VERSION=$K8S_VERSION
export TESTENV_NOBODY_TOKEN=nobody-token
export PATH=$BIN_DIR:\$PATH
export AWS_ENDPOINT_URL=http://127.0.0.1:$MOTO_PORT
export AWS_REGION=us-east-1
export AWS_ACCESS_KEY_ID=testing
export AWS_SECRET_ACCESS_KEY=testing
export SLS_TELEMETRY_DISABLED=1
export SLS_NOTIFICATIONS_MODE=off
ENV
log "up: kube-apiserver https://127.0.0.1:$API_PORT, etcd $ETCD_URL, moto http://127.0.0.1:$MOTO_PORT"
log "kubectl: $BIN_DIR/kubectl --kubeconfig $STATE/kubeconfig get --raw /version"
