#!/usr/bin/env bash
# Runs one local test server for the integration suite and makes sure it never outlives the test process.
#   supervise.sh TEST_PID STOP_SIGNAL COMMAND [ARGUMENT...]
# Started by Integration/Support/ServerProcess.swift as the leader of a new process group.
#  - SIGTERM to this script stops the server quickly: STOP_SIGNAL is the server's fast-shutdown signal (nginx: TERM,
#    gunicorn: INT), then SIGKILL to the whole group if it is still there after 3 s.
#  - If the test process dies without stopping us (a crash, SIGKILL), the same happens within a second.
# Exits with the server's status when the server ends on its own.
set -u

test_pid="$1"
stop_signal="$2"
shift 2

"$@" &
server=$!

sleeper=""

stop_server() {
  # The pending `sleep 1` is in our process group too: end it, or the group outlives us by up to a second.
  [ -z "$sleeper" ] || kill "$sleeper" 2>/dev/null
  kill -"$stop_signal" "$server" 2>/dev/null
  local tries=0
  # bash reaps the server as soon as it exits, so `kill -0` fails from then on.
  while kill -0 "$server" 2>/dev/null && [ "$tries" -lt 60 ]; do
    sleep 0.05
    tries=$((tries + 1))
  done
  if kill -0 "$server" 2>/dev/null; then
    echo "supervise.sh: server $server ignored SIG$stop_signal for 3 s; killing its process group" >&2
    kill -KILL 0
  fi
}

trap 'stop_server; exit 0' TERM INT HUP

# Wake up once a second to look at the test process, and at once when the server exits (`wait -n`, bash 4.3+).
if ((BASH_VERSINFO[0] > 4 || (BASH_VERSINFO[0] == 4 && BASH_VERSINFO[1] >= 3))); then
  wait_for_any() { wait -n 2>/dev/null; }
else
  wait_for_any() { wait "$sleeper" 2>/dev/null; }
fi

while kill -0 "$test_pid" 2>/dev/null && kill -0 "$server" 2>/dev/null; do
  sleep 1 &
  sleeper=$!
  wait_for_any
done
[ -z "$sleeper" ] || kill "$sleeper" 2>/dev/null

if kill -0 "$server" 2>/dev/null; then
  echo "supervise.sh: test process $test_pid is gone; stopping server $server" >&2
  stop_server
  # Whatever is left of the group (workers that outlived their master), this script too.
  kill -KILL 0
fi

wait "$server"
