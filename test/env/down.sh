#!/usr/bin/env bash
# Stops only the processes up.sh started, by their recorded PIDs, and removes their state.
# Works on a half-started environment too: up.sh names its state directory before it starts
# anything and records each PID as it starts it. Says what it stopped.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
[ -f "$STATE_LINK/state-dir" ] || { rm -rf "$STATE_LINK"; exit 0; }
STATE=$(cat "$STATE_LINK/state-dir")
stopped=()
stop_pid() { # label pid [group]
  local label=$1 pid=$2 target=$2
  [ -n "${3:-}" ] && target=-$pid
  kill -TERM -- "$target" 2>/dev/null || return 0
  for _ in $(seq 40); do kill -0 "$pid" 2>/dev/null || { stopped+=("$label ($pid)"); return 0; }; sleep 0.25; done
  kill -KILL -- "$target" 2>/dev/null
  stopped+=("$label ($pid, killed)")
}
stop() {
  local pidfile="$STATE/$1.pid"
  [ -f "$pidfile" ] && stop_pid "$1" "$(cat "$pidfile")"
}
# The process node first: it stops its Pods' processes itself. Any it could not (it was
# killed, or interrupted) are recorded under procs/, one process group each.
stop process-node
for f in "$STATE"/procs/*; do
  [ -f "$f" ] && stop_pid "pod process" "$(basename "$f")" group
done
for name in kube-scheduler kube-controller-manager kube-apiserver moto etcd; do stop "$name"; done
case "$STATE" in /dev/shm/aicr-env.*) rm -rf "$STATE" ;; esac
rm -rf "$STATE_LINK"
if [ ${#stopped[@]} -gt 0 ]; then
  log "stopped: ${stopped[*]}"
fi
log "removed $STATE and $STATE_LINK"
