#!/usr/bin/env bash
# `make demo`: builds the tour (Tools/Demo, target MalibuDemo) and `surf` (Tools/Surf), starts httpbin (gunicorn from .venv, installed by
# `make setup-servers`) on a free loopback port, runs the tour against it, and stops the server however the script
# ends (success, failure, Ctrl-C), then shows `surf` against the same server. Nothing is left running and nothing is
# left in /tmp.
# Environment: SWIFT (default swift); DEMO_START_TIMEOUT seconds to wait for httpbin (default 30).
# Extra arguments go to the demo (`Tools/scripts/demo.sh --verbose`).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
swift="${SWIFT:-swift}"
python="$root/.venv/bin/python"
supervisor="$root/Tools/servers/supervise.sh"
start_timeout="${DEMO_START_TIMEOUT:-30}"

say() { echo "demo: $*"; }
fail() {
  echo "demo: error: $*" >&2
  exit 1
}

if ! { [ -x "$python" ] && "$python" -c 'import httpbin, gunicorn' >/dev/null 2>&1; }; then
  fail "httpbin and gunicorn are not installed in .venv; run \`make setup-servers\`"
fi

# The same traits as the Makefile's builds (all of them), so that this reuses `make build`'s work.
say "building MalibuDemo"
"$swift" build --enable-all-traits --product MalibuDemo
say "building surf"
"$swift" build --enable-all-traits --product surf
surf_bin="$("$swift" build --enable-all-traits --show-bin-path)/surf"

# Everything the run writes (httpbin's log, the demo's temporary files via TMPDIR) goes into one directory.
run_dir="$(mktemp -d "${TMPDIR:-/tmp}/malibu-demo.XXXXXX")"
supervisor_pid=""
port=""

stop_server() {
  [ -n "$supervisor_pid" ] || return 0
  # supervise.sh stops gunicorn the quick way (SIGINT), and kills its process group if it lingers for 3 s.
  kill -TERM "$supervisor_pid" 2>/dev/null || true
  wait "$supervisor_pid" 2>/dev/null || true
  supervisor_pid=""
  if pgrep -f -- "--bind 127.0.0.1:$port " >/dev/null 2>&1; then
    echo "demo: warning: a gunicorn on port $port is still running after the stop" >&2
    return 1
  fi
}

cleanup() {
  local status=$?
  trap - EXIT INT TERM HUP
  stop_server || status=1
  rm -rf "$run_dir"
  [ -z "$port" ] || say "httpbin on port $port stopped"
  exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP

free_port() {
  "$python" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

answers() {
  "$python" - "$1" <<'EOF' >/dev/null 2>&1
import json, sys, urllib.request
with urllib.request.urlopen(sys.argv[1], timeout=1) as response:
    sys.exit(0 if response.status == 200 and "url" in json.load(response) else 1)
EOF
}

# A port can be taken between the pick and gunicorn's bind: try a few.
for attempt in 1 2 3; do
  port="$(free_port)"
  log="$run_dir/httpbin-$port.log"
  # A process group of its own (setsid), as the integration suite does: the supervisor may signal its whole group.
  # It watches this script's pid, and stops httpbin within a second if the script is killed without cleaning up.
  setsid "$supervisor" "$$" INT "$python" -m gunicorn \
    --bind "127.0.0.1:$port" --workers 1 --worker-class gthread --threads 8 \
    --graceful-timeout 2 --worker-tmp-dir "$run_dir" --error-logfile - \
    httpbin:app >"$log" 2>&1 </dev/null &
  supervisor_pid=$!
  deadline=$((SECONDS + start_timeout))
  until answers "http://127.0.0.1:$port/get"; do
    if ! kill -0 "$supervisor_pid" 2>/dev/null; then
      break
    fi
    if [ "$SECONDS" -ge "$deadline" ]; then
      tail -n 20 "$log" >&2 || true
      fail "httpbin did not answer on 127.0.0.1:$port within ${start_timeout} s; is .venv complete? run \`make setup-servers\`"
    fi
    sleep 0.1
  done
  if kill -0 "$supervisor_pid" 2>/dev/null; then
    break
  fi
  wait "$supervisor_pid" 2>/dev/null || true
  supervisor_pid=""
  if ! grep -q -e "Address already in use" -e "Connection in use" "$log" || [ "$attempt" -eq 3 ]; then
    tail -n 20 "$log" >&2 || true
    fail "httpbin exited before it answered on 127.0.0.1:$port; run \`make setup-servers\`"
  fi
  say "port $port was taken; trying another"
done
say "httpbin answering on http://127.0.0.1:$port (log: $log)"

TMPDIR="$run_dir" MALIBU_DEMO_PYTHON="$python" \
  "$swift" run --enable-all-traits --skip-build MalibuDemo --httpbin "http://127.0.0.1:$port" "$@"

# surf: the command line on Malibu, against the same httpbin. Its files (sessions, the offline store, downloads) go
# into the run directory, never into the user's configuration.
base="http://127.0.0.1:$port"
surf() {
  echo
  echo "\$ surf $*"
  (cd "$run_dir" && XDG_CONFIG_HOME="$run_dir/config" "$surf_bin" "$@" </dev/null) || echo "(exit status $?)"
}
say "surf, the command line on Malibu (Tools/Surf)"
surf "$base/get" board==balsa X-Board:7 --print=h
surf -v PUT "$base/put" title=Balsa count:=3 tags:='["fast","blue"]'
surf --form "$base/post" title="Balsa Fish" --print=b
surf --check-status "$base/status/404"
surf -a surfer:wave "$base/basic-auth/surfer/wave"
surf --session beach "$base/cookies/set?flavour=mango" --print=h
surf --session beach "$base/cookies"
surf --download "$base/range/102400?duration=2&chunk_size=2048" --output board.bin
surf --record cassette "$base/get" board==balsa --print=h
echo "\$ ls cassette && cat cassette/0001-GET-get.json"
ls "$run_dir/cassette" && cat "$run_dir/cassette/0001-GET-get.json"
surf --replay cassette "$base/get" board==balsa --print=h
