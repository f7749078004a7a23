#!/bin/bash
# Byte-identical outputs of `rules --json` and `fit -o` on the issue-33 datasets.
# usage: check.sh OUTDIR [REFDIR]   (writes OUTDIR; with REFDIR, compares)
set -u
out=$1; ref=${2:-}
mkdir -p "$out"
cd /work/wt-gen3
py="env PYTHONPATH=/work/wt-gen3 /work/venv/bin/python -m c45rules"
D=/work/shared/data
B=/work/main/bench/data
stems="$B/synth_1m/synth_1m $B/synth_1m_u5/synth_1m/synth_1m $D/synth_100k/synth_100k $D/income/income $D/letter/letter $D/crx/crx $D/hypo/hypo"
for s in $stems; do
  n=$(basename $s); case $s in *u5*) n=${n}_u5;; esac
  $py rules $s --json > $out/$n.rules.json 2>/dev/null || echo "FAIL rules $n"
  $py fit -q $s -o $out/$n.yaml >/dev/null 2>&1 || echo "FAIL fit $n"
done
$py rules $D/synth_10k/synth_10k --trials 3 --json > $out/synth_10k_t3.rules.json 2>/dev/null || echo "FAIL boost"
$py rules $B/synth_1m/synth_1m -j 2 --json > $out/synth_1m_j2.rules.json 2>/dev/null || echo "FAIL j2"
$py rules $D/synth_100k/synth_100k -j 2 --json > $out/synth_100k_j2.rules.json 2>/dev/null || echo "FAIL j2 100k"
if [ -n "$ref" ]; then
  bad=0
  for f in $ref/*; do
    cmp -s $f $out/$(basename $f) || { echo "DIFF $(basename $f)"; bad=1; }
  done
  [ $bad = 0 ] && echo "ALL IDENTICAL ($(ls $ref | wc -l) files)"
fi
