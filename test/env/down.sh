#!/usr/bin/env bash
# Stops only the processes up.sh started, by their recorded PIDs, and removes their state.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
[ -f "$STATE_LINK/env" ] || exit 0
STATE=$(sed -n 's/^export TESTENV_STATE=//p' "$STATE_LINK/env")
stop() {
  local pidfile="$STATE/$1.pid" pid
  [ -f "$pidfile" ] || return 0
  pid=$(cat "$pidfile")
  kill -TERM "$pid" 2>/dev/null || return 0
  for _ in $(seq 40); do kill -0 "$pid" 2>/dev/null || return 0; sleep 0.25; done
  kill -KILL "$pid" 2>/dev/null
}
for name in kube-apiserver moto etcd; do stop "$name"; done
case "$STATE" in /dev/shm/aicr-env.*) rm -rf "$STATE" ;; esac
rm -rf "$STATE_LINK"
