#!/usr/bin/env bash
# Stops only the processes up.sh started, by their recorded PIDs, and removes their state.
# Works on a half-started environment too: up.sh names its state directory before it starts
# anything and records each PID as it starts it. Says what it stopped.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
[ -f "$STATE_LINK/state-dir" ] || { rm -rf "$STATE_LINK"; exit 0; }
STATE=$(cat "$STATE_LINK/state-dir")
stopped=()

# A process that has exited but not yet been reaped (a zombie) counts as stopped.
alive() {
  local state
  state=$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -d' ' -f1) || return 1
  [ -n "$state" ] && [ "$state" != Z ]
}

# stop_all label=pid... : SIGTERM to each (a negative pid is a process group), SIGKILL to any
# still running after 10 s.
stop_all() {
  local pair pid waiting
  for pair in "$@"; do kill -TERM -- "${pair#*=}" 2>/dev/null; done
  for _ in $(seq 100); do
    waiting=0
    for pair in "$@"; do pid=${pair#*=}; alive "${pid#-}" && waiting=1; done
    [ "$waiting" -eq 0 ] && break
    sleep 0.1
  done
  for pair in "$@"; do
    pid=${pair#*=}
    if alive "${pid#-}"; then kill -KILL -- "$pid" 2>/dev/null; stopped+=("${pair%%=*} (${pid#-}, killed)")
    else stopped+=("${pair%%=*} (${pid#-})"); fi
  done
}
recorded() { # names... → label=pid for each that has a PID file
  local name
  for name in "$@"; do [ -f "$STATE/$name.pid" ] && printf '%s=%s\n' "$name" "$(cat "$STATE/$name.pid")"; done
}

# The process node first: it stops its Pods' processes itself. Any it could not (it was
# killed, or interrupted) are recorded under procs/, one process group each.
mapfile -t first < <(recorded process-node)
[ ${#first[@]} -gt 0 ] && stop_all "${first[@]}"
mapfile -t pods < <(for f in "$STATE"/procs/*; do [ -f "$f" ] && echo "pod process=-$(basename "$f")"; done)
[ ${#pods[@]} -gt 0 ] && stop_all "${pods[@]}"
# etcd last: kube-apiserver's graceful shutdown waits on it.
mapfile -t rest < <(recorded kube-scheduler kube-controller-manager kube-apiserver moto registry-proxy chart-repo registry)
[ ${#rest[@]} -gt 0 ] && stop_all "${rest[@]}"
mapfile -t last < <(recorded etcd)
[ ${#last[@]} -gt 0 ] && stop_all "${last[@]}"
case "$STATE" in /dev/shm/aicr-env.*) rm -rf "$STATE" ;; esac
rm -rf "$STATE_LINK"
[ ${#stopped[@]} -gt 0 ] && log "stopped: ${stopped[*]}"
log "removed $STATE and $STATE_LINK"
