#!/usr/bin/env bash
# lz.sh NAME ROUNDS "ARGS" : after binary only, variants alternated; IOPS per variant
set -euo pipefail
name=$1 rounds=$2 base=$3; shift 3
A=/tmp/i17of/iogauge-after
files=$(ls /dev/shm/i17of/m/m* | sort -V)
echo "## $name: iogauge run $base --file-set all [variant] (64 files of 1 MiB in /dev/shm)"
for r in $(seq 1 $rounds); do
  line="round $r:"
  for v in "$@"; do
    $A run $base --file-set all $v --no-save --output json --output-file /tmp/i17of/lz.json $files 2>/dev/null
    iops=$(python3 -c "import json;d=json.load(open('/tmp/i17of/lz.json'));print(f\"{d['total']['all']['iops']:.0f}\")")
    line="$line [$v] $iops"
  done
  echo "$line"
done
