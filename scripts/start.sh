#!/usr/bin/env bash
# The main job, locally: builds and starts a private kube-apiserver (the embedded default)
# and prints how to reach it with kubectl. Ctrl-C stops everything it started.
set -euo pipefail
cd "$(dirname "$0")/.."
export AICR_TESTENV_STATE_LINK="$PWD/test/env/.state-local"
bash test/env/bootstrap.sh
trap 'bash test/env/down.sh' EXIT
bash test/env/up.sh
. "$AICR_TESTENV_STATE_LINK/env"
cat <<MSG

aicr-control-plane local API server is up.
  kubectl --kubeconfig $KUBECONFIG get --raw /version
  export KUBECONFIG=$KUBECONFIG   # then plain kubectl works in this shell
  (kubectl $TESTENV_K8S_VERSION is at $TESTENV_BIN/kubectl)
Press Ctrl-C to stop.
MSG
while kill -0 "$(cat "$TESTENV_STATE/kube-apiserver.pid")" 2>/dev/null; do sleep 2; done
echo "kube-apiserver exited; see $TESTENV_STATE/kube-apiserver.log" >&2
exit 1
