#!/usr/bin/env bash
# One call of a lent GPU for issue 42: every figure the issue asks for, each stage guarded (a failing or hanging
# stage loses only itself), logs and JSON under $OUT. Needs the carried folder .gpu/ (built by benchmarks/gpu_carry.sh: suites,
# smollm2-135m's tokenizer and config, gemma-3-270m's config, wheels). On the device (about 6 minutes on an H200):
#
#   bash benchmarks/gpu_session.sh                      # with carry [".gpu"], timeout_s 600
#
# Dry run on a CPU (tiny models, a few sentences, every stage exercised; the wheels go to a scratch --target):
#
#   GPU_SESSION_DRY=1 OUT=/tmp/gpu-dry PY=/path/to/python bash benchmarks/gpu_session.sh
#
# Some stages only (stage a installs the wheels the others need): GPU_SESSION_STAGES="a e" bash ...
# Stage b's models: GPU_SESSION_BIG="llama-1b" (default: llama-1b llama-8b).
#
# Stages: a env (nvidia-smi, versions, the carried wheels installed, bf16 matmul rate); b large (1B and 8B:
# linguagym, the plain batched loop, minicons); c profile (torch profiler of linguagym's 1B run, per phase);
# d native (linguagym's own decoders against transformers, float32 and bfloat16); e e2e (an 8B model saved, then
# `linguagym run` on the 34 suites from a fresh process, its own decoder and transformers'); f bow (the 1B model
# with and without the word-boundary correction). Outputs in $OUT: session.log (everything printed), large.json,
# profile.txt, native.json, e2e_native.json, e2e_transformers.json, bow.json.
set -u
cd "$(dirname "$0")/.."
ROOT=$PWD
OUT=${OUT:-/tmp/gpu-session-out}
PY=${PY:-python3}
G=${GPU_DIR:-$ROOT/.gpu}
DRY=${GPU_SESSION_DRY:-0}
DEADLINE=$((SECONDS + ${GPU_SESSION_SECONDS:-570}))  # stop starting stages after this (the call allows 600 s)
STAGES=${GPU_SESSION_STAGES:-a b c d e f}  # a rerun of some: GPU_SESSION_STAGES="a e" (a installs the wheels)
mkdir -p "$OUT"
exec > >(tee -a "$OUT/session.log") 2>&1

# (tokenizers keeps its default, parallel encoding, as a user has it; it was off in the first H200 session)
export PYTHONUNBUFFERED=1 HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1
export LINGUAGYM_CACHE_DIR=/tmp/gpu-session-cache  # a fresh score cache (and the runs pass --no-cache anyway)
SUITES="$G/suites/*.json"
TOK="$G/smollm2-135m"
WORK=${GPU_SESSION_WORK:-/tmp/gpu-session-work}
rm -rf "$WORK" "$LINGUAGYM_CACHE_DIR"
mkdir -p "$WORK"
if [ "$DRY" = 1 ]; then
  SITE="$WORK/site"
  DEVICE=cpu; BIG=(llama-tiny); ONE=llama-tiny; EIGHT=llama-tiny; SAMPLE=(--sample 40); SHRINK=(--shrink)
  LIMIT=2
else
  SITE=/tmp/site
  DEVICE=cuda; read -r -a BIG <<<"${GPU_SESSION_BIG:-llama-1b llama-8b}"; ONE=llama-1b; EIGHT=llama-8b; SAMPLE=(); SHRINK=(); LIMIT=0
fi
SUMMARY=""
# the carried wheels (installed in stage a) and this checkout's linguagym, before anything else
export PYTHONPATH="$SITE:$ROOT${PYTHONPATH:+:$PYTHONPATH}"

stage() {  # stage NAME CAP_SECONDS COMMAND...: run it under a time limit, record its status and time
  local name=$1 cap=$2 left=$((DEADLINE - SECONDS))
  shift 2
  if [[ " $STAGES " != *" ${name%%-*} "* ]]; then
    SUMMARY+="$name: not asked for (GPU_SESSION_STAGES)"$'\n'
    return 0
  fi
  if [ "$left" -lt 20 ]; then
    echo "=== stage $name: SKIPPED, ${left}s left before the deadline ==="
    SUMMARY+="$name: skipped (deadline)"$'\n'
    return 0
  fi
  [ "$cap" -gt "$left" ] && cap=$left
  echo "=== stage $name: start $(date +%T), limit ${cap}s ==="
  local start=$SECONDS rc
  if declare -F "$1" >/dev/null; then  # a function of this script: run by a child bash (exported below)
    timeout -k 10 "$cap" bash -c "$(printf '%q ' "$@")"
  else
    timeout -k 10 "$cap" "$@"
  fi
  rc=$?
  echo "=== stage $name: rc=$rc$([ $rc = 124 ] && echo ' (TIMED OUT)') after $((SECONDS - start)) s ==="
  SUMMARY+="$name: rc=$rc, $((SECONDS - start)) s"$'\n'
  return 0
}

# -- a: environment, carried wheels ---------------------------------------------------------------------------------
env_stage() {
  echo "host: $(nproc) CPUs, $(free -g | awk '/Mem:/ {print $2}') GiB RAM; /tmp: $(df -h /tmp | awk 'NR==2 {print $4}') free"
  command -v nvidia-smi >/dev/null && nvidia-smi && nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.sm,clocks.max.sm,power.limit --format=csv
  local tag wheels
  tag=$("$PY" -c 'import sys; print(f"cp{sys.version_info[0]}{sys.version_info[1]}")')
  # the pure wheels and the binary ones built for this Python (rpds-py is carried for cp312, and cp311 for dry runs)
  wheels=$(ls "$G"/whl/*.whl | grep -E -- "-(py3-none-any|py2.py3-none-any|$tag-$tag-[^/]*)\.whl$")
  rm -rf "$SITE"
  "$PY" -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target "$SITE" $wheels \
    || { echo "WHEELS FAILED TO INSTALL"; return 1; }
  echo "installed into $SITE: $(ls "$SITE" | grep dist-info | tr '\n' ' ')"
  "$PY" - <<'EOF'
import importlib.metadata as md, linguagym, sys
print("python", sys.version.split()[0], "| linguagym from", linguagym.__file__)
for name in ("torch", "transformers", "tokenizers", "accelerate", "safetensors", "huggingface_hub", "numpy",
             "jsonschema", "platformdirs", "gguf", "minicons", "pandas", "matplotlib"):
    try:
        print(f"  {name} {md.version(name)}")
    except md.PackageNotFoundError:
        print(f"  {name} ABSENT")
import jsonschema, platformdirs, minicons.scorer  # noqa: F401  what linguagym and the benchmark import
import torch
print("cuda:", torch.cuda.is_available(), torch.version.cuda, torch.cuda.get_device_name() if torch.cuda.is_available() else "")
if torch.cuda.is_available():  # the card's bf16 matrix rate now (METHOD.md: random data, median of 10)
    a, b = (torch.randn(8192, 8192, device="cuda", dtype=torch.bfloat16) for _ in range(2))
    for _ in range(3):
        a @ b
    times = []
    for _ in range(10):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record(); a @ b; end.record(); torch.cuda.synchronize()
        times.append(start.elapsed_time(end) / 1e3)
    print(f"bf16 8192^3 matmul: {2 * 8192**3 / sorted(times)[5] / 1e12:.0f} TFLOP/s (median of 10)")
EOF
}
export -f env_stage
export PY G SITE
stage a-env 90 env_stage
"$PY" -m linguagym.cli run --help 2>/dev/null | grep -q -- --bow-correction && HAVE_BOW=1 || HAVE_BOW=0
echo "linguagym run --bow-correction: $([ $HAVE_BOW = 1 ] && echo present || echo absent)"
ENGINE=("$PY" benchmarks/gpu_engine.py)

# -- b: 1B and 8B, linguagym against the plain batched loop and minicons -------------------------------------------
stage b-large 220 "${ENGINE[@]}" large --device "$DEVICE" --tokenizer-dir "$TOK" --suites "$SUITES" \
  --models "${BIG[@]}" --budgets 16384 65536 --plain-batches 128 512 --minicons-batches 128 512 \
  --peak-tflops 790 "${SAMPLE[@]}" --json "$OUT/large.json"

# -- c: where linguagym's 1B run spends its wall time (torch profiler, summarised) -------------------------------
stage c-profile 100 "${ENGINE[@]}" large --device "$DEVICE" --tokenizer-dir "$TOK" --suites "$SUITES" \
  --models "$ONE" --budgets 16384 65536 --linguagym-only --peak-tflops 790 "${SAMPLE[@]}" \
  --torch-profile "$OUT/profile.txt"

# -- d: linguagym's own Llama and Gemma 3 decoders against transformers on the same weights and device ----------
stage d-native 130 "${ENGINE[@]}" native --device "$DEVICE" --tokenizer-dir "$TOK" \
  --configs "$G/smollm2-135m" "$G/gemma-3-270m" --suites "$SUITES" --dtypes float32 bfloat16 \
  --work-dir "$WORK" "${SAMPLE[@]}" "${SHRINK[@]}" --json "$OUT/native.json"

# -- e: the 8B model end to end through the CLI, from a fresh process ------------------------------------------
e2e_run() {  # e2e_run TAG [MODEL-ARGS]: one `linguagym run` of the 34 suites, GPU memory polled beside it
  local tag=$1 poll=""
  shift
  if command -v nvidia-smi >/dev/null; then
    nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits -lms 200 >"$WORK/nvsmi_$tag.csv" &
    poll=$!
  fi
  "$PY" benchmarks/startup.py --model "$WORK/$EIGHT" --suite "$G/suites" --limit "$LIMIT" --device auto \
    --dtype bfloat16 --report --repeat 1 "$@" --json "$OUT/e2e_$tag.json"
  local rc=$?
  if [ -n "$poll" ]; then
    kill "$poll"
    echo "e2e $tag: peak GPU memory used (nvidia-smi, every 0.2 s, whole card): $(sort -n "$WORK/nvsmi_$tag.csv" | tail -1) MiB"
  fi
  return $rc
}
e2e_stage() {
  "$PY" benchmarks/gpu_engine.py save --device "$DEVICE" --model "$EIGHT" --tokenizer-dir "$TOK" --out "$WORK/$EIGHT" || return 1
  local rc=0
  e2e_run native || rc=1
  e2e_run transformers --model-args native=false || rc=1
  return $rc
}
export -f e2e_run e2e_stage
export DEVICE EIGHT TOK WORK LIMIT OUT
stage e-e2e 260 e2e_stage
rm -rf "${WORK:?}/$EIGHT"

# -- f: the word-boundary correction's cost on the 1B model -----------------------------------------------------
if [ "$HAVE_BOW" = 1 ]; then
  stage f-bow 80 "${ENGINE[@]}" large --device "$DEVICE" --tokenizer-dir "$TOK" --suites "$SUITES" \
    --models "$ONE" --budgets 16384 65536 --linguagym-only --bow --peak-tflops 790 "${SAMPLE[@]}" \
    --json "$OUT/bow.json"
else
  SUMMARY+="f-bow: skipped (no --bow-correction)"$'\n'
fi

echo "=== summary ($SECONDS s in all) ==="
printf '%s' "$SUMMARY"
ls -la "$OUT"
