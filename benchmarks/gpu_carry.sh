#!/usr/bin/env bash
# Build .gpu/, the folder benchmarks/gpu_session.sh needs on a lent GPU (device call with carry [".gpu"]): the 34
# suites, smollm2-135m's tokenizer and config, gemma-3-270m's config, and the wheels the GPU image lacks
# (what each is for: below). Run from the repository root, with the named models
# fetched (`linguagym models --fetch smollm2-135m gemma-3-270m`) and PyPI reachable; about 9 MiB.
#
# suites/                  the 34 SyntaxGym 2020 suites (copy of /work/shared/data/syntaxgym/suites/*.json)
# smollm2-135m/            smollm2-135m's config.json, generation_config.json, tokenizer.json, tokenizer_config.json
#                          (no weights): the tokenizer of every random-weight model (ids < 49152 fit every
#                          vocabulary used), its special ids, and the Llama shape of the native-decoder comparison
# gemma-3-270m/            gemma-3-270m's config.json only: the Gemma 3 shape of the native-decoder comparison
# whl/                     wheels the image lacks, installed by stage a with
#                            python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
#                              --target /tmp/site <the py3-none-any wheels and the ones for this Python>
#                          linguagym base dependencies absent from the image: jsonschema 4.26.0,
#                          jsonschema-specifications 2025.9.1, referencing 0.37.0, rpds-py 2026.9.1 (cp312; cp311
#                          too, for dry runs on this machine's Python 3.11), platformdirs 4.14.8, gguf 0.19.0;
#                          the benchmark's minicons 0.3.39 and its one missing dependency wonderwords 3.0.1.
#                          (attrs, accelerate, pandas, pillow, matplotlib ... are in the image.)
#                          Not carried: transformers (the image's 5.17.0 is below pyproject's floor 5.18, which is
#                          there for gemma-3's GGUF tokenizer only; every stage ran with 5.17.0 in the dry run) and
#                          torch (the image's 2.11.0+cu130; pyproject says >=2.13, CI's version; too large to carry).
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PY:-.venv/bin/python}
CACHE=$("$PY" -c 'from linguagym.scoring.cache import resolve_cache_dir; print(resolve_cache_dir(None))')
grep -qx '/.gpu/' .git/info/exclude 2>/dev/null || echo '/.gpu/' >>.git/info/exclude
rm -rf .gpu && mkdir -p .gpu/suites .gpu/smollm2-135m .gpu/gemma-3-270m .gpu/whl
cp ../shared/data/syntaxgym/suites/*.json .gpu/suites/
for f in config.json generation_config.json tokenizer.json tokenizer_config.json; do
  cp "$CACHE"/models/smollm2-135m-*/"$f" .gpu/smollm2-135m/ 2>/dev/null || true
done
cp "$CACHE"/models/gemma-3-270m-*/config.json .gpu/gemma-3-270m/
download() {  # the image's Python is 3.12 (a cp311 rpds-py too, for dry runs on a 3.11 machine)
  python3 -m pip download -q --no-deps --only-binary=:all: --python-version "$1" --implementation cp \
    --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 \
    -d .gpu/whl "${@:2}"
}
download 3.12 jsonschema==4.26.0 jsonschema-specifications==2025.9.1 referencing==0.37.0 rpds-py==2026.9.1 \
  platformdirs==4.14.8 gguf==0.19.0 minicons==0.3.39 wonderwords==3.0.1
download 3.11 rpds-py==2026.9.1
echo ".gpu/ for benchmarks/gpu_session.sh, built by benchmarks/gpu_carry.sh (what each part is for: its header)." >.gpu/README.txt
du -sh .gpu
