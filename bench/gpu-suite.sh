#!/usr/bin/env bash
# The GPU figures owed, in priority order, for a machine with a real GPU (run from the project
# root after `npm run build`; compiled benches, no tsx needed). Each bench writes its own file to
# $OUT (default bench/results/gpu-suite-<date>) with the commit at the top; a time limit per bench
# keeps one slow bench from taking the others' time. Also, where python3 has torch: the torch
# reference vectors of that torch version (test/fixtures/torch format), as a tarball.
set -u
out=${OUT:-bench/results/gpu-suite-$(date +%Y-%m-%d)}
mkdir -p "$out"
# dist/CODE names the code that runs (write it after the build: git rev-parse --short HEAD > dist/CODE);
# a device copy's git may be stale.
code=$(cat dist/CODE 2>/dev/null || git rev-parse --short HEAD 2>/dev/null || echo unknown)
root=$(pwd)
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem --format=csv,noheader 2>/dev/null
# Arguments pick benches by name (default: all, in order); `torch` picks the reference vectors.
want() { [ $# -eq 0 ] || [[ " $picks " == *" $1 "* ]]; }
picks="$*"
if { [ -z "$picks" ] || want torch; } && python3 -c 'import torch' 2>/dev/null; then
  tv=$(mktemp -d)/tv && mkdir -p "$tv"
  (cd "$tv/.." && timeout 120 python3 "$root/tools/torch-vectors/gen.py" "$tv" > "$tv/gen.log" 2>&1; echo "gen rc $?" >> "$tv/gen.log")
  tail -3 "$tv/gen.log"
  tar -C "$(dirname "$tv")" -czf "$out/torch-fixtures.tgz" tv
fi
run() {
  local name=$1 limit=$2
  shift 2
  [ -z "$picks" ] || want "$name" || return 0
  local t0=$(date +%s)
  { echo "# code $code"; echo "# node dist/bench/main.js $*"; timeout "$limit" node dist/bench/main.js "$@"; echo "# rc $? in $(( $(date +%s) - t0 )) s"; } > "$out/$name.txt" 2>&1
  tail -4 "$out/$name.txt"
}
run parallel-b 240 parallel --only b --warm-jit 3000
run solo-overhead 80 solo-overhead
run exp-cost 40 exp-cost
run fused-optim 110 fused-optim
run fusion 120 fusion
