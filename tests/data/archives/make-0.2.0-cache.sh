#!/usr/bin/env bash
# Makes tests/data/archives/0.2.0-cache.tar: the caches ravenpost 0.2.0 (commit 5813380,
# the release before the caches moved into SQLite) keeps in `.git/ravenpost/` of a clone
# of ravenpost-0.1.0.bundle, after `verify`, `status` and `log` of every game; later
# releases must answer as 0.1.0 did with them in place (tests/it/compat_archive.rs).
# Usage: make-0.2.0-cache.sh PATH-TO-RAVENPOST-0.2.0-BINARY
set -euo pipefail
R=$(realpath "$1")
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export HOME="$work/home" GIT_CONFIG_NOSYSTEM=1 TZ=UTC
mkdir -p "$HOME"
unset RAVENPOST_ARCHIVE
A="$work/archive"
git clone --quiet --branch main "$here/ravenpost-0.1.0.bundle" "$A"
export RAVENPOST_TIME=$(cat "$here/0.1.0-time.expected")
"$R" --archive "$A" verify --json >/dev/null
"$R" --archive "$A" status --json >/dev/null
for g in g-ann-bo grand-tc fid-1 fg-secret fg-draw g-clock; do
  "$R" --archive "$A" log "$g" --json >/dev/null
done
tar -C "$A/.git/ravenpost" --sort=name --owner=0 --group=0 --numeric-owner --mtime=@0 \
  -cf "$here/0.2.0-cache.tar" .
tar -tvf "$here/0.2.0-cache.tar"
