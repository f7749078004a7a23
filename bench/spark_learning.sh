#!/usr/bin/env bash
# Learning on Spark (issue 51, BENCHMARKS.md "Learning on Spark"): one CSV learnt in memory, then
# with --engine spark on local[2], then on a standalone cluster (a master and two 1-core workers
# started from pyspark's jars), each under /usr/bin/time -v (the driver's wall, CPU and peak RSS),
# the model files compared, the --json's bytes per pass kept; every 5 s the resident memory of the
# JVMs (the local driver's, or the cluster's master, workers and executors) is sampled into
# OUTDIR/RUN.jvm. Usage: bench/spark_learning.sh DATA TARGET OUTDIR [FIT OPTION ...] (the options,
# e.g. --memory 4GB, go to the two Spark fits; the first fit is the plain in-memory one)
set -euo pipefail
data=$1 target=$2 out=$3
shift 3
mkdir -p "$out"
py=${PYTHON:-python}
sample_jvms() {   # "seconds total_rss_kb largest_rss_kb" of the java processes, every 5 s
  local t=0
  while sleep 5; do
    t=$((t + 5))
    { ps -C java -o rss= || true; } | awk -v t=$t '{s += $1; if ($1 > m) m = $1} END {print t, s + 0, m + 0}'
  done
}
fit() {
  local run=$1; shift
  sample_jvms > "$out/$run.jvm" & local sampler=$!
  /usr/bin/time -v -o "$out/$run.time" "$py" -m c45rules fit "$data" --target "$target" -o "$out/$run.yaml" --json "$@" > "$out/$run.json" || true
  kill $sampler 2>/dev/null || true
}
fit memory
fit local --engine spark --master 'local[2]' "$@"
home=$("$py" -c 'import pyspark, os; print(os.path.dirname(pyspark.__file__))')
export SPARK_HOME=$home SPARK_SCALA_VERSION=2.13 SPARK_LOCAL_IP=127.0.0.1 PYSPARK_PYTHON=$(command -v "$py") SPARK_WORKER_DIR=$out/work
port=$(( 20000 + RANDOM % 20000 )); ui=$((port + 1))
java -Xmx256m -cp "$home/jars/*" org.apache.spark.deploy.master.Master --host 127.0.0.1 --port $port --webui-port $ui > "$out/master.log" 2>&1 & pids=($!)
for k in 0 1; do
  java -Xmx256m -cp "$home/jars/*" org.apache.spark.deploy.worker.Worker --host 127.0.0.1 --webui-port $((ui + 1 + k)) --cores 1 --memory 2g spark://127.0.0.1:$port > "$out/worker$k.log" 2>&1 & pids+=($!)
done
trap 'kill "${pids[@]}" 2>/dev/null || true' EXIT
until curl -s "http://127.0.0.1:$ui/json/" | grep -q '"aliveworkers" : 2'; do sleep 1; done
fit cluster --engine spark --master spark://127.0.0.1:$port "$@"
for run in memory local cluster; do
  printf '%s wall=%s cpu_user=%s cpu_sys=%s peak_rss_kb=%s jvm_peak_total_kb=%s same_model=%s\n' "$run" \
    "$(grep 'Elapsed (wall' "$out/$run.time" | awk '{print $NF}')" "$(grep 'User time' "$out/$run.time" | awk '{print $NF}')" \
    "$(grep 'System time' "$out/$run.time" | awk '{print $NF}')" "$(grep 'Maximum resident' "$out/$run.time" | awk '{print $NF}')" \
    "$(awk '$2 > m {m = $2} END {print m + 0}' "$out/$run.jvm")" \
    "$(cmp -s "$out/memory.yaml" "$out/$run.yaml" && echo yes || echo no)"
done
