#!/usr/bin/env python3
"""Scoring a large file with the three `predict` engines (issue 29): rows/s and peak memory.

Usage:
  python bench/engines.py [--rows 20000000] [--sample 1000000] [--train synth_100k]
                          [--engines default,duckdb,spark] [--full] [--markdown BENCHMARKS.md]
                          [--data-dir bench/data] [--keep] [--copies] [--jobs N]

Makes (once, cached in --data-dir, gitignored) the synthetic data of --rows rows with
../shared/tools/make_synth.py, written as CSV with a header, and a sample of it: every k-th row
(k = rows / sample, so the sample spans the whole file). Fits a model on --train (a shared
dataset) with `c45rules fit`. Then runs, each as a whole `c45rules predict --engine E MODEL
DATA -o OUT` process: every engine on the sample, and DuckDB (the engine meant for files larger
than memory) on all rows; `--full` runs default and Spark on all rows too.

Measured per run: wall seconds, rows/s, and the peak of the summed proportional set size of
the process and its children (sampled every 0.1 s; Spark's JVM is a child), so memory shared
between processes counts once. Checked per run: the output's rows equal the default engine's,
byte for byte, on the sample (for a run over all rows, its every k-th row is compared with the
default engine's output on the sample). Prints a table; with --markdown, writes it as the
`engines` section of that file (bench/run.py keeps the section when it rewrites the file).
"""
from __future__ import annotations

import argparse
import itertools
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))
import reference as R  # noqa: E402
from common import TreePss, machine, markdown_table, put_section, run_stamp  # noqa: E402

DATA_DIR = BENCH / "data"


def synth_csv(rows: int, data_dir: Path) -> Path:
    """The synthetic training rows of make_synth as CSV with a header (made once)."""
    out = data_dir / f"synth_{rows}.csv"
    if out.exists():
        return out
    stem = data_dir / f"synth_{rows}" / f"synth_{rows}"
    if not Path(f"{stem}.data").exists():
        print(f"generating {rows:,} rows with make_synth.py", file=sys.stderr)
        subprocess.run([sys.executable, str(R.SHARED / "tools" / "make_synth.py"), "--sizes", str(rows),
                        "--outroot", str(data_dir)], check=True)
    sys.path.insert(0, str(BENCH.parent))
    from c45rules.data.names import read_names
    schema = read_names(f"{stem}.names")
    header = ",".join([*(a.name for a in schema.attributes), schema.target]) + "\n"
    tmp = out.with_suffix(".tmp")
    with open(tmp, "wb") as dst, open(f"{stem}.data", "rb") as src:
        dst.write(header.encode())
        shutil.copyfileobj(src, dst, 16 << 20)
    os.replace(tmp, out)
    return out


def every_kth(src: Path, dst: Path, k: int) -> int:
    """Write the header and every k-th row of a CSV (the 1st, (k+1)-th, ...); returns the rows."""
    n = 0
    with open(src, "rb") as f, open(dst, "wb") as out:
        out.write(f.readline())
        for line in itertools.islice(f, 0, None, k):
            out.write(line)
            n += 1
    return n


def count_rows(path: Path) -> int:
    """Data rows of a CSV with a header."""
    with open(path, "rb") as f:
        return sum(block.count(b"\n") for block in iter(lambda: f.read(16 << 20), b"")) - 1


def copy_file(src: Path, dst: Path) -> None:
    """The physical limit of the default engine (issue 52): `src` read and written by pyarrow
    with no decision, streamed; CSV cells read as text and written quoted only where needed."""
    import pyarrow as pa
    if src.suffix == ".parquet":
        import pyarrow.parquet as pq
        reader = pq.ParquetFile(src)
        with pq.ParquetWriter(dst, reader.schema_arrow) as writer:
            for batch in reader.iter_batches(batch_size=50_000):
                writer.write_batch(batch)
        return
    import pyarrow.csv as pacsv
    with open(src, "rb") as f:
        names = f.readline().decode().rstrip("\r\n").split(",")
    reader = pacsv.open_csv(src, read_options=pacsv.ReadOptions(block_size=1 << 22), convert_options=pacsv.ConvertOptions(
        column_types={n: pa.string() for n in names}, strings_can_be_null=False, null_values=[]))
    with pacsv.CSVWriter(dst, reader.schema, write_options=pacsv.WriteOptions(quoting_style="needed")) as writer:
        for batch in reader:
            writer.write_batch(batch)


def as_parquet(src: Path) -> Path:
    """The CSV `src` as Parquet, its columns typed as pyarrow infers them (made once)."""
    out = src.with_suffix(".parquet")
    if not out.exists():
        import pyarrow.csv as pacsv
        import pyarrow.parquet as pq
        tmp = out.with_suffix(".tmp")
        pq.write_table(pacsv.read_csv(src), tmp)
        os.replace(tmp, out)
    return out


# The physical limit of an engine (issue 52): the same file read and written by the same reader
# and writer, every cell as text, with no decision. Each prints the seconds its session took to
# start (Spark's JVM; 0 for DuckDB) on stdout.
COPY = {
    "duckdb": """
import sys, duckdb
src, out = sys.argv[1:3]
print(0.0)
duckdb.connect().execute(
    "COPY (SELECT * FROM read_csv(?, header=true, all_varchar=true)) TO '" + out.replace("'", "''")
    + "' (FORMAT csv, HEADER true)", [src])
""",
    "spark": """
import sys, time, glob, os
from pyspark.sql import SparkSession
src, out = sys.argv[1:3]
t = time.perf_counter()
spark = (SparkSession.builder.master("local[2]").config("spark.ui.enabled", "false").getOrCreate())
spark.sparkContext.setLogLevel("OFF")
print(time.perf_counter() - t)
spark.read.csv(src, header=True, inferSchema=False).write.csv(out + ".dir", header=True, mode="overwrite")
spark.stop()
""",
}


def run_engine(engine: str, model: Path | None, data: Path, out: Path) -> dict:
    """One whole `predict` process (engine "copy": copy_file instead; ENGINE-copy: the copy of
    COPY): wall seconds, CPU seconds and peak summed PSS of it and its children, and a copy's
    session start seconds."""
    cmd = [sys.executable, "-m", "c45rules", "predict", "-q", "--engine", *engine.split(" "), str(model), str(data),
           "-o", str(out)]
    if engine == "copy":
        cmd = [sys.executable, str(Path(__file__).resolve()), "--copy", str(data), str(out)]
    elif engine.endswith("-copy"):
        cmd = [sys.executable, "-c", COPY[engine[:-len("-copy")]], str(data), str(out)]
    t0 = time.perf_counter()
    c0 = os.times()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    sampler = TreePss(proc.pid)
    sampler.start()
    stdout, err = proc.communicate()
    wall = time.perf_counter() - t0
    c1 = os.times()
    peak = sampler.stop()
    if proc.returncode:
        raise SystemExit(f"{engine} on {data.name} failed ({proc.returncode}):\n{err}")
    start = float(stdout.split()[0]) if engine.endswith("-copy") and engine != "copy" else None
    shutil.rmtree(f"{out}.dir", ignore_errors=True)
    return {"wall": wall, "cpu": c1.children_user + c1.children_system - c0.children_user - c0.children_system,
            "peak_kb": peak, "start": start}


def differing_rows(out: Path, reference: Path, k: int = 1) -> tuple[int, int]:
    """(rows of `out`'s every k-th row that differ from `reference`'s rows, rows compared)."""
    with open(out, "rb") as a, open(reference, "rb") as b:
        if a.readline() != b.readline():
            raise SystemExit(f"{out}: header differs from {reference}")
        mine = itertools.islice(a, 0, None, k)
        diff = n = 0
        for x, y in itertools.zip_longest(mine, b):
            n += 1
            diff += x != y
    return diff, n


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rows", type=int, default=20_000_000)
    ap.add_argument("--sample", type=int, default=1_000_000)
    ap.add_argument("--train", default="synth_100k", help="shared dataset the model is fitted on")
    ap.add_argument("--engines", default="default,duckdb,spark")
    ap.add_argument("--full", action="store_true", help="run every engine on all rows, not DuckDB alone")
    ap.add_argument("--data-dir", type=Path, default=DATA_DIR)
    ap.add_argument("--markdown", type=Path, default=None)
    ap.add_argument("--keep", action="store_true", help="keep the scored outputs")
    ap.add_argument("--boosted", type=int, default=0, metavar="TRIALS",
                    help="also score the sample with a model boosted with TRIALS trials (default engine)")
    ap.add_argument("--jobs", type=int, default=0, metavar="N",
                    help="also score the sample with the default engine's `predict -j N` (issue 52)")
    ap.add_argument("--copy", nargs=2, type=Path, metavar=("SRC", "DST"), help=argparse.SUPPRESS)
    ap.add_argument("--copies", action="store_true",
                    help="after DuckDB and Spark, their copy of the same rows with no decision (issue 52)")
    args = ap.parse_args(argv)
    if args.copy:
        copy_file(*args.copy)
        return 0
    engines = [e.strip() for e in args.engines.split(",") if e.strip()]
    if "default" not in engines:
        ap.error("--engines must include default: the others are checked against it")
    args.data_dir.mkdir(parents=True, exist_ok=True)
    work = args.data_dir / "engines-run"
    work.mkdir(exist_ok=True)

    full = synth_csv(args.rows, args.data_dir)
    k = max(1, args.rows // args.sample)
    sample = args.data_dir / f"synth_{args.rows}.every{k}.csv"
    if not sample.exists():
        every_kth(full, sample, k)
    rows = {"sample": count_rows(sample), "all": count_rows(full)}
    model = work / "model.yaml"
    subprocess.run([sys.executable, "-m", "c45rules", "fit", "-q", str(R.DATA / args.train / args.train),
                    "-o", str(model)], check=True, stdout=subprocess.DEVNULL)

    boosted = work / f"model.b{args.boosted}.yaml"
    if args.boosted:
        subprocess.run([sys.executable, "-m", "c45rules", "fit", "-q", str(R.DATA / args.train / args.train),
                        "--trials", str(args.boosted), "-o", str(boosted)], check=True, stdout=subprocess.DEVNULL)
    # (label, engine, rows, model, input and output suffix); each copy row is the limit of the
    # default engine's row after it, measured next to it
    plan = [("pyarrow CSV copy", "copy", "sample", None, ".csv"), ("default", "default", "sample", model, ".csv")]
    plan += [(e, e, "sample", model, ".csv") for e in engines if e != "default"]
    for e in engines:
        if e == "duckdb" or args.full:
            plan += [("pyarrow CSV copy", "copy", "all", None, ".csv")] if e == "default" else []
            plan.append((e, e, "all", model, ".csv"))
    plan += [("pyarrow Parquet copy", "copy", "sample", None, ".parquet"),
             ("default, Parquet", "default", "sample", model, ".parquet")]
    if args.jobs:
        plan += [("pyarrow CSV copy", "copy", "sample", None, ".csv"),
                 (f"default -j {args.jobs}", f"default -j {args.jobs}", "sample", model, ".csv")]
    if args.boosted:
        plan.append((f"default, boosted {args.boosted}", "default", "sample", boosted, ".csv"))
    if args.copies:   # each engine's copy right after it, on the same rows
        plan = [step for step in plan
                for step in [step] + ([(f"{step[1]}-copy", f"{step[1]}-copy", step[2], None, step[4])]
                                      if step[1] in COPY and step[4] == ".csv" else [])]
    results = []
    for label, engine, which, fitted, suffix in plan:
        data = sample if which == "sample" else full
        if suffix == ".parquet":
            data = as_parquet(data)
        out = work / f"{label.replace(' ', '_').replace(',', '')}.{which}{suffix}"
        print(f"{label} on {rows[which]:,} rows ...", file=sys.stderr, flush=True)
        load = os.getloadavg()[0]
        res = run_engine(engine, fitted, data, out)
        diff = compared = None
        if not engine.endswith("copy") and suffix == ".csv":
            diff, compared = differing_rows(out, work / "default.sample.csv", k if which == "all" else 1)
            if fitted != model:   # another model decides otherwise: only the input columns compare
                diff = compared = None
        results.append({"engine": label, "rows": rows[which], "bytes": data.stat().st_size, **res,
                        "differ": diff, "compared": compared, "load": (load, os.getloadavg()[0])})
        print(f"  {res['wall']:.1f} s ({res['cpu']:.1f} s CPU), peak {res['peak_kb'] / 1024:.0f} MB,"
              f" {diff} of {compared} sampled rows differ", file=sys.stderr, flush=True)
        if (not args.keep and which == "all") or engine.endswith("copy"):
            out.unlink(missing_ok=True)

    header = ["engine", "rows", "input", "wall s", "CPU s", "rows/s", "peak MB", "agrees", "load avg"]
    table = markdown_table(header, [[
        r["engine"] + (f" (session start {r['start']:.1f} s)" if r["start"] else ""), f"{r['rows']:,}",
        f"{r['bytes'] / 1e9:.2f} GB", f"{r['wall']:.1f}", "-" if r["engine"].startswith("spark") else f"{r['cpu']:.1f}",
        f"{r['rows'] / r['wall']:,.0f}", f"{r['peak_kb'] / 1024:,.0f}",
        "-" if r["differ"] is None else "yes" if not r["differ"] else f"NO: {r['differ']:,} of {r['compared']:,} differ",
        f"{r['load'][0]:.2f} -> {r['load'][1]:.2f}"] for r in results])
    print(table)
    if args.markdown:
        stamp, mach = run_stamp(), machine()
        body = "\n".join([
            "## Scoring a file with the three engines (issue 29)", "",
            f"Written by `python bench/engines.py --rows {args.rows} --sample {args.sample}"
            f" --engines {','.join(engines)}{' --full' if args.full else ''}{' --copies' if args.copies else ''}"
            f"{f' --boosted {args.boosted}' if args.boosted else ''}{f' --jobs {args.jobs}' if args.jobs else ''}`, measured {stamp['date']} at commit {stamp['commit']} on "
            f"{mach['cpu']}, {mach['cores']} cores, {mach['ram']}.", "",
            f"Model fitted on {args.train}; data: make_synth.py rows as CSV with a header. Each run is a whole "
            "`c45rules predict --engine E MODEL DATA -o OUT.csv` process: wall time from start to exit, CPU "
            "seconds (user + system, the process and its children), and the peak of the summed proportional set size of the process and its children (Spark's JVM "
            "included), sampled every 0.1 s. The sample is every "
            f"{k}-th row of the file; `agrees`: the output's rows equal the default engine's on the sample, "
            "byte for byte (for a run over all rows, its rows at the sample's positions are compared). "
            "A `pyarrow ... copy` row is the physical limit of the default engine (issue 52): the same file "
            "read and written by pyarrow with no decision (CSV: every cell as text, streamed); the Parquet "
            "rows read the sample written as Parquet with pyarrow's inferred types, and write Parquet. "
            "ENGINE-copy: the same file read and written by that engine with no decision, every cell as "
            "text (Spark: its session start given apart, and included in the wall time). CPU s is not given "
            "for Spark, whose JVM the process does not wait for.", "",
            table, ""])
        put_section(args.markdown, "engines", body)
        print(f"wrote the engines section of {args.markdown}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
