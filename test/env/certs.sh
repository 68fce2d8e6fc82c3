#!/usr/bin/env bash
# Writes a throwaway PKI for one test environment into $1: one CA that signs the API server's
# serving certificate and the client certificates (admin, control plane, controller-manager,
# scheduler, process node), plus the service-account key pair.
set -euo pipefail
dir=$1
mkdir -p "$dir"
cd "$dir"
q() { "$@" >/dev/null 2>&1 || { echo "certs.sh: $1 $2 failed" >&2; exit 1; }; }

# P-256 keys: generating seven RSA keys took seconds of every start on a busy 2-core machine.
EC=(-newkey ec -pkeyopt ec_paramgen_curve:prime256v1)
q openssl req -x509 "${EC[@]}" -nodes -days 2 -subj "/CN=aicr-testenv-ca" \
  -keyout ca.key -out ca.crt
sign() { # name subject extensions
  q openssl req -new "${EC[@]}" -nodes -subj "$2" -keyout "$1.key" -out "$1.csr"
  printf '%s\n' "$3" > "$1.ext"
  q openssl x509 -req -in "$1.csr" -CA ca.crt -CAkey ca.key -CAcreateserial -days 2 \
    -extfile "$1.ext" -out "$1.crt"
  rm -f "$1.csr" "$1.ext"
}
sign serving "/CN=kube-apiserver" \
  "subjectAltName=IP:127.0.0.1,DNS:localhost
extendedKeyUsage=serverAuth
keyUsage=digitalSignature,keyEncipherment"
sign admin "/O=system:masters/CN=aicr-test-admin" \
  "extendedKeyUsage=clientAuth
keyUsage=digitalSignature,keyEncipherment"
# The control plane gets its own identity, so the audit log tells its requests from the tests'.
sign controlplane "/O=system:masters/CN=aicr-control-plane" \
  "extendedKeyUsage=clientAuth
keyUsage=digitalSignature,keyEncipherment"
client() { sign "$1" "$2" "extendedKeyUsage=clientAuth
keyUsage=digitalSignature,keyEncipherment"; }
# The controller-manager and scheduler use the names Kubernetes' built-in RBAC grants their
# roles to, so they run with exactly a real cluster's rights.
client kube-controller-manager "/CN=system:kube-controller-manager"
client kube-scheduler "/CN=system:kube-scheduler"
# The process node has its own user; process-node-rbac.yaml says what it may do.
client process-node "/CN=aicr-testenv-process-node"
# What kube-apiserver presents to the process node's log endpoint (kubectl logs).
client apiserver-kubelet-client "/O=system:masters/CN=kube-apiserver-kubelet-client"
q openssl genrsa -out sa.key 2048
q openssl rsa -in sa.key -pubout -out sa.pub
chmod 600 ./*.key
