#!/usr/bin/env bash
# The package as a user gets it: `python -m build` makes the sdist and, from it, the wheel
# (compiling the C steps); the wheel goes into a fresh venv, and `c45rules demo out/` runs in
# a directory outside the repository, so it must find the crx data inside the installed package.
# Usage: .ci/wheel.sh PYTHON_WITH_BUILD WORKDIR   (PyPI reachable: numpy, pandas, ... and setuptools)
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
builder=$1
work=$2
mkdir -p "$work"
"$builder" -m build --outdir "$work/dist" "$repo"
sdist=$(ls "$work"/dist/c45rules-*.tar.gz)
wheel=$(ls "$work"/dist/c45rules-*.whl)
# listings in files: `grep -q` on a pipe would end the writer early, a failure under pipefail
tar -tzf "$sdist" | sed 's|^[^/]*/||' > "$work/sdist.txt"
"$builder" -c 'import sys, zipfile; print("\n".join(zipfile.ZipFile(sys.argv[1]).namelist()))' "$wheel" > "$work/wheel.txt"
for member in c45rules/examples/crx/crx.names c45rules/examples/crx/crx.data c45rules/examples/crx/crx.test; do
    grep -qx "$member" "$work/sdist.txt" || { echo "ci: $sdist lacks $member" >&2; exit 1; }
    grep -qx "$member" "$work/wheel.txt" || { echo "ci: $wheel lacks $member" >&2; exit 1; }
done
grep -q '^c45rules/tree/_grow\..*\.so$' "$work/wheel.txt" || { echo "ci: $wheel has no compiled steps" >&2; exit 1; }

"$builder" -m venv "$work/venv"
"$work/venv/bin/python" -m pip install -q --disable-pip-version-check "$wheel"
mkdir -p "$work/elsewhere"
cd "$work/elsewhere"
installed=$(env -u PYTHONPATH "$work/venv/bin/python" -c 'import c45rules; print(c45rules.__file__)')
case "$installed" in
    "$work/venv/"*) ;;
    *) echo "ci: c45rules imported from $installed, not the wheel" >&2; exit 1 ;;
esac
env -u PYTHONPATH "$work/venv/bin/c45rules" demo out/ > demo.txt
for f in rules.txt model.yaml rules.sql rules.py report.html; do
    [ -s "out/$f" ] || { echo "ci: the wheel's demo did not write out/$f" >&2; exit 1; }
done
grep -q "200 of 200 rows agree" demo.txt || { echo "ci: the wheel's demo SQL check failed" >&2; cat demo.txt >&2; exit 1; }
echo "ci: the wheel $(basename "$wheel") ran c45rules demo out/ from $work/elsewhere"
