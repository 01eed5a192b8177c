#!/bin/sh
# install-deps.sh [--tests]: installs the Debian/Ubuntu packages that building tsketch needs (and,
# with --tests, what its tests run: numpy for the Python reader, snakemake for the workflow, quicktree for the tree tests).
# Only missing packages are installed; apt-get runs directly as root, through sudo otherwise, so
# the README's commands work on a fresh Debian 12 as root (no sudo there) and as a user.
set -eu
pkgs="build-essential pkg-config meson ninja-build libhts-dev zlib1g-dev libcriterion-dev python3"
if [ "${1:-}" = --tests ]; then
    pkgs="$pkgs python3-numpy snakemake quicktree"
elif [ $# -gt 0 ]; then
    echo "usage: $0 [--tests]" >&2
    exit 2
fi

missing=""
for p in $pkgs; do
    dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -n "$missing" ] || exit 0

if [ "$(id -u)" -eq 0 ]; then
    as_root=""
elif command -v sudo >/dev/null 2>&1; then
    as_root="sudo"
else
    echo "install-deps.sh: not root and no sudo: install these packages first:$missing" >&2
    exit 1
fi
echo "install-deps.sh: installing$missing" >&2
$as_root env DEBIAN_FRONTEND=noninteractive apt-get update -qq
# shellcheck disable=SC2086 # one word per package
$as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing >/dev/null
