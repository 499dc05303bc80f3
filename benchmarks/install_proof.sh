#!/usr/bin/env bash
# Issue 39's install proof, for one Python: from a fresh clone, `python -m build` (sdist + wheel), a new venv with
# torch by the Makefile's route, the wheel installed, `linguagym models --fetch` + `linguagym demo` run and checked
# (Hugging Face offline, a fresh cache), and the sdist's own tests run from the unpacked sdist.
#
#   benchmarks/install_proof.sh PYTHON [REPO]       e.g. benchmarks/install_proof.sh /opt/py313/bin/python3.13
#
# REPO (default: this checkout) is cloned at its HEAD: commit first, uncommitted edits are not part of the proof.
# A one-off proof run by hand, not a CI step: where no CPU torch build is reachable it installs PyPI's torch, on
# Linux the CUDA build (about 5 GB with its NVIDIA packages). Results: docs/install.md.
# Environment: WORK (default: a new folder under /tmp, kept), TESTS (the sdist's tests to run; default below),
# FRESH_CACHE=0 reuses the user's linguagym cache instead of a new LINGUAGYM_CACHE_DIR.
set -euo pipefail

PY=${1:?usage: benchmarks/install_proof.sh PYTHON [REPO]}
SRC=${2:-$(git -C "$(dirname "$0")/.." rev-parse --show-toplevel)}
WORK=${WORK:-$(mktemp -d /tmp/linguagym-install-proof.XXXXXX)}
# The base package's tests (what `make test-floors` runs: tiny models, no extra) plus the package tests.
TESTS=${TESTS:-tests/scoring tests/evaluation tests/test_install.py tests/test_package.py}
export HF_HUB_OFFLINE=1 PIP_DISABLE_PIP_VERSION_CHECK=1
PIP_Q=(--quiet)

started=$(date +%s)
step_started=$started
step() {  # close the previous step with its wall time, open the next
    local now; now=$(date +%s)
    [ -n "${STEP:-}" ] && echo "   [$STEP: $((now - step_started)) s]"
    STEP=$1; step_started=$now
    echo "== $STEP"
}
fail() { echo "FAILED: $*" >&2; exit 1; }
size() { du -sh "$@" | cut -f1; }

echo "python: $("$PY" -c 'import sys, platform; print(sys.version.split()[0], platform.machine())') ($PY)"
echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores"
echo "work: $WORK"

step "clone"
git clone --quiet "$SRC" "$WORK/clone"
echo "commit $(git -C "$WORK/clone" rev-parse --short HEAD) of $SRC"

step "python -m build (sdist + wheel)"
"$PY" -m venv "$WORK/build-venv"
"$WORK/build-venv/bin/python" -m pip install "${PIP_Q[@]}" build
"$WORK/build-venv/bin/python" -m build -o "$WORK/dist" "$WORK/clone" > "$WORK/build.log" 2>&1 \
    || { tail -30 "$WORK/build.log"; fail "python -m build"; }
sdist=$(ls "$WORK"/dist/linguagym-*.tar.gz)
wheel=$(ls "$WORK"/dist/linguagym-*.whl)
echo "sdist $(basename "$sdist") $(size "$sdist"); wheel $(basename "$wheel") $(size "$wheel")"

step "venv + torch"
"$PY" -m venv "$WORK/venv"
V="$WORK/venv/bin"
route=$(make -s -C "$WORK/clone" torch-route PYTHON="$V/python")
echo "make torch-route: $route"
index=$(sed -n 's/.*--index-url \([^ ]*\).*/\1/p' <<< "$route")
torch_spec=${route##* }
if [ -n "$index" ] && ! curl -sf -o /dev/null --max-time 20 "$index/torch/"; then
    echo "note: $index is not reachable from here; installing PyPI's $torch_spec instead"
    echo "      (on Linux that is the CUDA build, with NVIDIA's packages; it runs on a CPU)"
    route="pip install $torch_spec"
fi
# shellcheck disable=SC2086  # the route is words: pip install [--index-url URL] SPEC
"$V/python" -m ${route} "${PIP_Q[@]}"
"$V/python" -c 'import torch; print("torch", torch.__version__, "cuda build:", torch.version.cuda or "no",
    "cuda available:", torch.cuda.is_available())'
echo "NVIDIA packages: $("$V/python" -m pip list 2>/dev/null | grep -c '^nvidia-' || true)"
echo "venv with torch: $(size "$WORK/venv")"

step "wheel"
"$V/python" -m pip install "${PIP_Q[@]}" "$wheel"
echo "venv with linguagym: $(size "$WORK/venv")"
"$V/python" -m linguagym --help | grep -q "usage: linguagym" || fail "python -m linguagym --help"

step "models --fetch smollm2-135m + demo"
if [ "${FRESH_CACHE:-1}" = 1 ]; then export LINGUAGYM_CACHE_DIR="$WORK/cache"; fi
echo "cache: ${LINGUAGYM_CACHE_DIR:-the user cache directory}"
"$V/linguagym" models --fetch smollm2-135m 2>&1 | tail -3
(cd "$WORK" && "$V/linguagym" demo -o "$WORK/demo") > "$WORK/demo.log" 2>&1 || { cat "$WORK/demo.log"; fail "demo"; }
sed -n '/scoring them with/,$p' "$WORK/demo.log"
for suite in agreement_across_pp npi_ever npz_comma "mean accuracy"; do
    grep -q "$suite" "$WORK/demo.log" || fail "the demo's table has no row '$suite'"
done
[ -s "$WORK/demo/smollm2-135m/predictions.csv" ] || fail "no predictions.csv in $WORK/demo/smollm2-135m"
[ -s "$WORK/demo/report.html" ] || fail "no report.html in $WORK/demo"

step "the sdist's own tests, from the unpacked sdist"
mkdir -p "$WORK/unpacked" && tar -xzf "$sdist" -C "$WORK/unpacked"
root=$(ls -d "$WORK"/unpacked/linguagym-*)
"$V/python" -m pip install "${PIP_Q[@]}" "pytest>=8,<10" "hypothesis>=6.100,<7"
echo "tests import linguagym from: $(cd "$root" && "$V/python" -c 'import linguagym, os; print(os.path.dirname(linguagym.__file__))')"
echo "running: pytest -m 'not slow' $TESTS"
(cd "$root" && "$V/python" -m pytest -q -p no:cacheprovider -m "not slow" $TESTS) > "$WORK/tests.log" 2>&1 \
    || { tail -60 "$WORK/tests.log"; fail "the sdist's tests"; }
grep -E "^(FAILED|ERROR)|[0-9]+ (passed|failed)" "$WORK/tests.log" | tail -5

step "done"
echo "total: $(( $(date +%s) - started )) s; logs in $WORK (build.log, demo.log, tests.log)"
