#!/usr/bin/env bash
# Installs what building and testing Malibu needs, and only what is missing. Safe to run again.
#   Debian packages: the C libraries the system-library targets link (zlib, libcurl), and the Public Suffix List
#   that MalibuStorage's cookie jar reads at run time (publicsuffix: /usr/share/publicsuffix/public_suffix_list.dat).
set -euo pipefail

# Arguments: more Debian packages to install the same way (`make bench-setup` passes the benchmarks' own).
apt_packages=(zlib1g-dev libcurl4-openssl-dev pkg-config publicsuffix "$@")

missing=()
for package in "${apt_packages[@]}"; do
  dpkg -s "$package" >/dev/null 2>&1 || missing+=("$package")
done

if [ ${#missing[@]} -gt 0 ]; then
  if ! command -v apt-get >/dev/null 2>&1; then
    echo "setup: missing ${missing[*]} and apt-get is not available; install them with your package manager" >&2
    exit 1
  fi
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  echo "setup: installing ${missing[*]}"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
