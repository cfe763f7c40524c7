#!/usr/bin/env bash
# Makes tests/data/archives/ravenpost-0.1.0.bundle: an archive written by ravenpost 0.1.0
# (commit f3e0cad, the release before the referee layer), and the outputs that release
# gave for it (*.expected), which later releases must reproduce (tests/compat_archive.rs).
# Usage: make-0.1.0.sh PATH-TO-RAVENPOST-0.1.0-BINARY
set -euo pipefail
R=$(realpath "$1")
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export HOME="$work/home" GIT_CONFIG_NOSYSTEM=1 XDG_CONFIG_HOME="$work/home/.config" TZ=UTC
mkdir -p "$HOME"
unset RAVENPOST_ARCHIVE
A="$work/archive"
t=1764000000 # 2025-11-24T16:00:00Z
step() { t=$((t + $1)); export RAVENPOST_TIME=$t; }
rp() { "$R" --archive "$A" --author "Club <club@example.org>" "$@"; }
first_move() { "$R" moves "$1" --position "$2" | head -1; }
step 0; "$R" init "$A" >/dev/null
git -C "$A" config user.name Club; git -C "$A" config user.email club@example.org

# 1. Gygax Chess, the README's game, then a resignation.
step 60; rp new gygax --white Ann --black Bo --id g-ann-bo >/dev/null
for m in 2e3@Ann Sa3b6@Bo Rx3b6@Ann U2c6@Bo R:2c6@Ann H3b7@Bo; do
  step 3600; rp move g-ann-bo "${m%%@*}" --as "${m##*@}" >/dev/null
done
step 600; rp resign g-ann-bo --as Ann >/dev/null

# 2. Grand Chess with a time control: moves, leave, and a win on time after it.
step 60; rp new grand --white Cy --black Di --id grand-tc --time-control 1/3d >/dev/null
play_first() { # game variant white black plies
  local g=$1 v=$2 w=$3 b=$4 n=$5 who pos
  for ((k = 0; k < n; k++)); do
    if ((k % 2 == 0)); then who=$w; else who=$b; fi
    pos=$("$R" --archive "$A" show "$g" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["position"])')
    step 7200; rp move "$g" "$(first_move "$v" "$pos")" --as "$who" >/dev/null
  done
}
play_first grand-tc grand Cy Di 4
step 60; rp leave grand-tc --as Cy --from "$(date -u -d @$((t + 86400)) +%Y-%m-%d)" --days 2 >/dev/null
step $((86400 * 20)); rp claim timeout grand-tc --as Di >/dev/null

# 3. Gygax's Fidchell: the introduction phase.
step 60; rp new fidchell --white Ann --black Di --id fid-1 >/dev/null
play_first fid-1 fidchell Ann Di 6

# 4. Fantasy Grand Chess, armies chosen in secret, then two moves.
step 60; rp new fantasy-grand --white Bo --black Cy --id fg-secret --secret-armies >/dev/null
step 60; rp army commit fg-secret elves --as Bo >/dev/null
step 60; rp army commit fg-secret giants --as Cy >/dev/null
step 60; rp army reveal fg-secret --as Bo >/dev/null
step 60; rp army reveal fg-secret --as Cy >/dev/null
play_first fg-secret fantasy-grand Bo Cy 0
for k in 1 2; do
  pos=$("$R" --archive "$A" show fg-secret --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["position"])')
  if ((k == 1)); then who=Bo; else who=Cy; fi
  step 3600; rp move fg-secret "$("$R" moves fantasy-grand --position "$pos" --option army-white=elves --option army-black=giants | head -1)" --as $who >/dev/null
done

# 5. Fantasy Grand Chess with fixed armies: a draw offered with a move, then accepted.
step 60; rp new fantasy-grand --white Di --black Ann --id fg-draw --army-white dwarves --army-black evil-horde >/dev/null
for k in 1 2 3; do
  pos=$("$R" --archive "$A" show fg-draw --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["position"])')
  if ((k % 2 == 1)); then who=Di; else who=Ann; fi
  if ((k == 3)); then step 60; rp draw offer fg-draw --as Di >/dev/null; fi
  step 3600; rp move fg-draw "$("$R" moves fantasy-grand --position "$pos" --option army-white=dwarves --option army-black=evil-horde | head -1)" --as $who >/dev/null
done
step 600; rp draw accept fg-draw --as Ann >/dev/null

# 6. Gygax Chess with ten moves in thirty days, still going: status shows the clock.
step 60; rp new gygax --white Bo --black Di --id g-clock --time-control 10/30d >/dev/null
play_first g-clock gygax Bo Di 3

# What 0.1.0 says of it, at a fixed time.
step 86400
for g in g-ann-bo grand-tc fid-1 fg-secret fg-draw g-clock; do
  "$R" --archive "$A" log "$g" --json > "$here/0.1.0-log-$g.expected"
done
"$R" --archive "$A" status --json > "$here/0.1.0-status.expected"
"$R" --archive "$A" verify --json > "$here/0.1.0-verify.expected"
echo "$t" > "$here/0.1.0-time.expected"
git -C "$A" bundle create "$here/ravenpost-0.1.0.bundle" --all 2>/dev/null
git -C "$A" log --oneline | wc -l
