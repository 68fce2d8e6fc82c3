#!/usr/bin/env bash
# The main job, locally. With no arguments it runs on the embedded default: it builds (first
# time only) and starts a private test cluster (kube-apiserver, controller-manager, scheduler
# and simulated Nodes whose Pods run as local processes), installs the chart (infra/chart: CRDs,
# namespaces, RBAC, configuration from harness/chart-values.yaml) and runs the
# control plane (forwarder, embedded queue and steps in one process) against it.
# Ctrl-C at any moment, even while it is still starting, stops exactly what it started.
# To run against a real cluster, name both the kubeconfig and the context:
#   npm start -- --kubeconfig ~/.kube/config --context my-cluster
# AICR_LOCAL_REGISTRY_AUTH=aws npm start runs registry.auth.mode aws against moto (docs/registry-eks.md).
# The user's current context is never used implicitly.
set -euo pipefail
cd "$(dirname "$0")/.."
NODE=node_modules/.bin/node

if [ $# -gt 0 ]; then
  [ -x "$NODE" ] || npm ci --no-audit --no-fund --loglevel=error
  exec "$NODE" shared/local/main.ts "$@"
fi

export TESTENV_STATE_LINK="${AICR_LOCAL_STATE:-$PWD/test/env/.state-local}"
bash test/env/bootstrap.sh
# down.sh stops what up.sh recorded so far, so the trap is set before anything starts; an
# interrupt ends the script (after the command in progress) and so runs it.
trap 'bash test/env/down.sh' EXIT
trap 'exit 130' INT TERM
bash test/env/up.sh
. "$TESTENV_STATE_LINK/env"
"$NODE" scripts/install-chart.ts
cat <<MSG

aicr-control-plane is running locally against its own test cluster ($TESTENV_K8S_VERSION).
Its Nodes are simulated: Pods bound to them run as local processes.
GPUs on the H100 Nodes are simulated: a stand-in nvidia-smi on their Pods' PATH prints the Node's GPU facts.
Argo CD is real (v3.5.1's application controller, repo-server and Redis, from its own manifests;
  kubectl -n argocd get pods): it pulls each release's chart from the registry below and applies it.
  The fixture charts it deploys run a placeholder workload on the simulated Nodes (docs/adr/0009-test-cluster.md).
OCI registry (bundles are pushed here): http://$TESTENV_REGISTRY, account $TESTENV_REGISTRY_USER (password in $TESTENV_STATE_LINK/env);
  the same registry through a test stand-in proxy that can answer 403: http://$TESTENV_REGISTRY_PROXY
Upstream charts are copied into it from a test stand-in chart repository of fixture charts: $TESTENV_CHART_REPO
  (AICR's recipes point at it through a --data overlay that only the test environment adds)
In another shell (the kubeconfig path stays the same across restarts):
  export KUBECONFIG=$KUBECONFIG PATH=$PWD/bin:$TESTENV_BIN:\$PATH   # bin/ holds kubectl-aicr, the kubectl aicr plugin
  kubectl apply -f examples/clusterruntime.yaml
  kubectl get clusterruntime cluster
  kubectl get configmap -n aicr-system aicr-config -o jsonpath='{.data.config\.yaml}'   # the chart's configuration
  kubectl get clusterruntime cluster -o jsonpath='{range .status.conditions[*]}{.type}{"\t"}{.status}{"\t"}{.reason}{"\t"}{.message}{"\n"}{end}'
AICR runs as Jobs; to see them with their stage and input, and one Job's output:
  kubectl get jobs -n aicr-jobs -L operator.aicr.run/stage,operator.aicr.run/input
  kubectl logs -n aicr-jobs job/<name>
Once Resolved is True, the plan it names (docs/plans.md):
  kubectl get configmaps -n aicr-system -l operator.aicr.run/role=plan -L operator.aicr.run/schema-version
  kubectl get clusterruntime cluster -o wide
Then a rollout to that plan waits for approval (Stalled, AwaitingApproval; docs/rollouts.md):
  kubectl aicr describe
  kubectl aicr approve <rollout>
Approved, it writes the releases to Argo CD one at a time, each after Argo CD reports the previous one
synced and healthy, then runs AICR's deployment validation (the validator image pinned by digest in
the chart's aicr.validatorImages); watch them appear in order, then the runtime turn Ready:
  kubectl get applications -n argocd -w
  kubectl aicr describe <rollout>      # the step in flight and what it waits for
  kubectl wait --for=condition=Ready clusterruntime/cluster --timeout=10m
Logs (JSON) follow below. Ctrl-C stops everything.

MSG
"$NODE" shared/local/main.ts --kubeconfig "$KUBECONFIG" --context aicr-control-plane
