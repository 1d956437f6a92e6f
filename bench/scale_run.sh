#!/usr/bin/env bash
# Scale benchmark (issue #15): times rollstat on generated count rows and on a 100M-rollout sharded dataset,
# each command under /usr/bin/time (wall, user+sys CPU, peak RSS). Prints one TSV line per command:
#   label  wall_s  cpu_s  peak_MB  command
# Usage: bench/scale_run.sh BIN DATA_DIR counts|shards
#   counts: DATA_DIR/c1e5.jsonl c1e6.jsonl c1e7.jsonl (python bench/scale.py counts N FILE), default and --ci none
#   shards: DATA_DIR/shards/shard-*.jsonl (python bench/scale.py shards 100000000 64 4 DATA_DIR/shards):
#           summarize per shard, merge, report on the merged summary, and report on the shards directly
set -euo pipefail
bin=$1 data=$2 what=$3
run() {
  local label=$1; shift
  local t; t=$(mktemp)
  /usr/bin/time -f "%e %U %S %M" -o "$t" "$@" > /dev/null
  read -r wall user sys kb < "$t"; rm -f "$t"
  printf '%s\t%s\t%.1f\t%d\t%s\n' "$label" "$wall" "$(echo "$user + $sys" | bc)" $((kb / 1024)) "$*"
}
case $what in
counts)
  for n in 1e5 1e6 1e7; do
    run "count rows 10^${n#1e} default" "$bin" report "$data/c$n.jsonl" --format json -o "$data/out-c$n-default.json"
    run "count rows 10^${n#1e} --ci none" "$bin" report "$data/c$n.jsonl" --format json --ci none -o "$data/out-c$n-none.json"
  done ;;
shards)
  parts=()
  for s in "$data"/shards/shard-*.jsonl; do
    p="$data/part-$(basename "$s" .jsonl).jsonl"
    run "summarize $(basename "$s")" "$bin" summarize "$s" -o "$p"
    parts+=("$p")
  done
  run "merge ${#parts[@]} parts" "$bin" merge "${parts[@]}" -o "$data/merged.jsonl"
  run "report merged summary" "$bin" report "$data/merged.jsonl" --format json -o "$data/out-merged.json"
  run "report shards directly" "$bin" report "$data"/shards/shard-*.jsonl --format json -o "$data/out-direct.json"
  ls -l "$data/merged.jsonl" | awk '{print "merged summary bytes\t" $5}'
  ;;
esac
