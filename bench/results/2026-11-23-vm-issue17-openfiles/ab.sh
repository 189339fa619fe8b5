#!/usr/bin/env bash
# ab.sh NAME PAIRS "ARGS" TARGETS... : before and after alternately; prints IOPS, mean latency, ratio per pair
set -euo pipefail
name=$1 pairs=$2 args=$3; shift 3
B=/tmp/i17of/iogauge-before A=/tmp/i17of/iogauge-after
out=/tmp/i17of/ab/$name; mkdir -p $out
field() { python3 -c "
import json,sys
d=json.load(open('$1'));t=d['total']['all'];l=t.get('latency') or {}
print(f\"{t['iops']:.0f} {l.get('mean_ns') or 0:.0f}\")"; }
echo "## $name: iogauge run $args"
printf '%-4s %10s %10s %8s %10s %10s\n' pair before after ratio b_lat_ns a_lat_ns
for i in $(seq 1 $pairs); do
  order="before after"; [ $((i % 2)) -eq 0 ] && order="after before"
  for w in $order; do
    bin=$B; [ $w = after ] && bin=$A
    $bin run $args --no-save --output json --output-file $out/$w-$i.json "$@" 2>/dev/null
  done
  read bi bl < <(field $out/before-$i.json); read ai al < <(field $out/after-$i.json)
  printf '%-4s %10s %10s %8.3f %10s %10s\n' $i $bi $ai $(python3 -c "print($ai/$bi)") $bl $al
done
