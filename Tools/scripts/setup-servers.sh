#!/usr/bin/env bash
# Installs the local servers the integration suite (Integration/) starts, and only what is missing. Safe to run again:
# a second run changes nothing and says so.
#   nginx    Debian's package; its system service is never started (we run the binary from a private config).
#   openssl  Debian's package: the suite makes its TLS server's test CA and certificate with the CLI.
#   httpbin  served by gunicorn, from PyPI into the project's own .venv, pinned in Tools/servers/requirements.txt.
# Environment: PYTHON (default python3) picks the interpreter the venv is made from.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
requirements="$root/Tools/servers/requirements.txt"
template="$root/Tools/servers/nginx.conf.template"
venv="$root/.venv"
stamp="$venv/.malibu-servers.sha256"
python="${PYTHON:-python3}"

say() { echo "setup-servers: $*"; }
fail() {
  echo "setup-servers: error: $*" >&2
  exit 1
}

sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
apt_updated=0

apt_install() {
  command -v apt-get >/dev/null 2>&1 || fail "need the Debian package(s) $* but apt-get is not available; install them with your package manager"
  local log
  log="$(mktemp)"
  if [ "$apt_updated" -eq 0 ]; then
    $sudo apt-get update -qq >"$log" 2>&1 || {
      cat "$log" >&2
      rm -f "$log"
      fail "apt-get update failed"
    }
    apt_updated=1
  fi
  # Keep apt from starting (or enabling the start of) the packages' system services: the suite runs its own nginx
  # on a free loopback port, and a system nginx on port 80 is not wanted. Only when the machine has no policy yet.
  local policy=/usr/sbin/policy-rc.d added_policy=0
  if [ ! -e "$policy" ]; then
    printf '#!/bin/sh\nexit 101\n' | $sudo tee "$policy" >/dev/null
    $sudo chmod 755 "$policy"
    added_policy=1
  fi
  local status=0
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@" >"$log" 2>&1 ||
    status=$?
  [ "$added_policy" -eq 0 ] || $sudo rm -f "$policy"
  if [ "$status" -ne 0 ]; then
    cat "$log" >&2
    rm -f "$log"
    fail "apt-get install $* failed (exit $status)"
  fi
  rm -f "$log"
  say "installed Debian package(s): $*"
}

find_nginx() {
  local candidate
  for candidate in "${MALIBU_NGINX:-}" "$(command -v nginx 2>/dev/null || true)" /usr/sbin/nginx /usr/local/sbin/nginx \
    /usr/local/bin/nginx /opt/homebrew/bin/nginx; do
    if [ -n "$candidate" ] && [ -x "$candidate" ]; then
      echo "$candidate"
      return 0
    fi
  done
  return 1
}

# --- nginx -------------------------------------------------------------------------------------------------------
if nginx_bin="$(find_nginx)"; then
  say "nginx present: $nginx_bin"
else
  say "installing nginx (Debian package, service not started)"
  apt_install nginx
  nginx_bin="$(find_nginx)" || fail "nginx was installed but no nginx binary was found"
fi

# --- openssl -----------------------------------------------------------------------------------------------------
if command -v openssl >/dev/null 2>&1; then
  say "openssl present: $(command -v openssl)"
else
  say "installing openssl (Debian package)"
  apt_install openssl
  command -v openssl >/dev/null 2>&1 || fail "openssl was installed but no openssl binary was found"
fi

# The binary must run from a private config, without root paths: check our template the way the suite renders it,
# with a throwaway self-signed certificate where the suite puts its test certificate (run directory, tls/).
check_dir="$(mktemp -d)"
trap 'rm -rf "$check_dir"' EXIT
mkdir -p "$check_dir/www" "$check_dir/tls"
if ! output="$(openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=127.0.0.1 \
  -keyout "$check_dir/tls/server.key" -out "$check_dir/tls/server.pem" </dev/null 2>&1)"; then
  fail "openssl cannot make a test certificate: $output"
fi
user_directive=""
[ "$(id -u)" -ne 0 ] || user_directive="user root;"
sed -e "s|@TLS_PORT@|9|g" -e "s|@PORT@|8|g" -e "s|@RUN_DIR@|$check_dir|g" -e "s|@WWW_DIR@|$check_dir/www|g" \
  -e "s|@USER_DIRECTIVE@|$user_directive|g" "$template" >"$check_dir/nginx.conf"
if ! output="$("$nginx_bin" -t -q -p "$check_dir" -c "$check_dir/nginx.conf" -e stderr 2>&1)"; then
  fail "nginx rejects Tools/servers/nginx.conf.template: $output"
fi
say "nginx $("$nginx_bin" -v 2>&1 | sed 's|.*nginx/||') accepts the private config"

# --- Python venv with httpbin + gunicorn ---------------------------------------------------------------------------
want_hash="$(sha256sum <"$requirements" | cut -d' ' -f1)"

venv_ok() {
  "$venv/bin/python" -c 'import httpbin, gunicorn' >/dev/null 2>&1
}

if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want_hash" ] && venv_ok; then
  say ".venv up to date ($(grep -E '^(httpbin|gunicorn)==' "$requirements" | tr '\n' ' '))"
  say "nothing to do"
  exit 0
fi

command -v "$python" >/dev/null 2>&1 || fail "$python not found: install python3 (Debian: apt-get install python3)"
"$python" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 8) else 1)' ||
  fail "$python is older than 3.8"

# Debian splits `venv`/`ensurepip` into python3-venv; install it when the interpreter is Debian's own.
if ! "$python" -c 'import venv, ensurepip' >/dev/null 2>&1; then
  case "$(command -v "$python")" in
    /usr/bin/*) apt_install python3-venv ;;
    *) fail "$python cannot create virtual environments (no venv/ensurepip module)" ;;
  esac
fi

if [ -x "$venv/bin/python" ] && "$venv/bin/python" -c 'import pip' >/dev/null 2>&1; then
  say "updating .venv to the pins in Tools/servers/requirements.txt"
else
  say "creating .venv with $("$python" --version 2>&1)"
  rm -rf "$venv"
  "$python" -m venv "$venv"
fi

# --no-deps: the requirements file is the whole closure, so the installed set is exactly the pinned one.
"$venv/bin/python" -m pip install --disable-pip-version-check --no-input -q --no-deps -r "$requirements"
"$venv/bin/python" -m pip check --disable-pip-version-check >/dev/null ||
  fail "pip check found broken requirements in .venv: $("$venv/bin/python" -m pip check 2>&1 || true)"
venv_ok || fail "httpbin or gunicorn does not import in .venv: $("$venv/bin/python" -c 'import httpbin, gunicorn' 2>&1 | tail -3)"
printf '%s' "$want_hash" >"$stamp"
say "installed $(grep -E '^(httpbin|gunicorn)==' "$requirements" | tr '\n' ' ')into .venv"
