"""Writes test/fixtures/tiny-cross-encoder/model.onnx, the stand-in cross-encoder of the rerank tests.

Why it exists: no real cross-encoder (ms-marco-MiniLM, bge-reranker, ...) can be obtained on the
machines this project builds on. Only the package registries (PyPI, npm, crates.io, Maven, Go,
Debian) are reachable, and none of their packages ships such weights. The reranking code is real
all the same; this model lets the tests run it end to end. It has the signature of the Xenova
ms-marco-MiniLM-L-6-v2 ONNX export: inputs input_ids, attention_mask and token_type_ids
(int64 [batch, sequence]), output logits (float [batch, 1]).

Its logit is lexical overlap: the number of document tokens (segment 1, attended, not [SEP]) that
also occur in the query (segment 0, attended, not [CLS] or [SEP]). That makes the ranking depend on
both segments, so a test can tell that pairs are encoded as [CLS] query [SEP] document [SEP] with
the right token types and attention mask, which a query-blind weight table could not.

A real model goes in RERANK_MODEL_DIR (default .cache/models/cross-encoder): its model.onnx (for
example onnx/model.onnx of Xenova/ms-marco-MiniLM-L-6-v2) and tokenizer.json, copied from a machine
that can reach the Hugging Face hub; scripts/install-reranker.sh copies and checks them.

Run (the output is deterministic, so rerunning it changes no byte):
    python3 -m venv /tmp/onnx-venv && /tmp/onnx-venv/bin/pip install onnx==1.23.2
    /tmp/onnx-venv/bin/python scripts/make-test-cross-encoder.py
"""

from pathlib import Path

import onnx
from onnx import TensorProto, helper

# bert-base-uncased WordPiece ids, shared by the ms-marco cross-encoders and all-MiniLM-L6-v2.
CLS_ID = 101
SEP_ID = 102
# Old enough for every onnxruntime release this project might pin; ReduceMax still takes axes as
# an attribute at this opset.
OPSET = 17
IR_VERSION = 8

OUTPUT = Path(__file__).resolve().parent.parent / "test" / "fixtures" / "tiny-cross-encoder" / "model.onnx"


def constant(name, data_type, values, dims):
    return helper.make_node("Constant", [], [name], value=helper.make_tensor(name + "_value", data_type, dims, values))


def build_model():
    nodes = [
        constant("one", TensorProto.INT64, [1], []),
        constant("cls", TensorProto.INT64, [CLS_ID], []),
        constant("sep", TensorProto.INT64, [SEP_ID], []),
        constant("axis_1", TensorProto.INT64, [1], [1]),
        constant("axis_2", TensorProto.INT64, [2], [1]),
        # Which positions count: attended tokens, split by segment, special tokens left out.
        helper.make_node("Equal", ["attention_mask", "one"], ["attended"]),
        helper.make_node("Equal", ["token_type_ids", "one"], ["segment_b"]),
        helper.make_node("Not", ["segment_b"], ["segment_a"]),
        helper.make_node("Equal", ["input_ids", "cls"], ["is_cls"]),
        helper.make_node("Equal", ["input_ids", "sep"], ["is_sep"]),
        helper.make_node("Or", ["is_cls", "is_sep"], ["is_special"]),
        helper.make_node("Not", ["is_special"], ["is_word"]),
        helper.make_node("And", ["attended", "is_word"], ["attended_word"]),
        helper.make_node("And", ["attended_word", "segment_a"], ["in_query"]),
        helper.make_node("And", ["attended_word", "segment_b"], ["in_document"]),
        # same[b, i, j]: token i equals token j, and j is a query token.
        helper.make_node("Unsqueeze", ["input_ids", "axis_2"], ["ids_as_rows"]),
        helper.make_node("Unsqueeze", ["input_ids", "axis_1"], ["ids_as_columns"]),
        helper.make_node("Equal", ["ids_as_rows", "ids_as_columns"], ["same"]),
        helper.make_node("Unsqueeze", ["in_query", "axis_1"], ["query_columns"]),
        helper.make_node("And", ["same", "query_columns"], ["matches_query"]),
        helper.make_node("Cast", ["matches_query"], ["matches_query_float"], to=TensorProto.FLOAT),
        helper.make_node("ReduceMax", ["matches_query_float"], ["in_query_text"], axes=[2], keepdims=0),
        helper.make_node("Cast", ["in_document"], ["in_document_float"], to=TensorProto.FLOAT),
        helper.make_node("Mul", ["in_query_text", "in_document_float"], ["shared_tokens"]),
        helper.make_node("ReduceSum", ["shared_tokens", "axis_1"], ["logits"], keepdims=1),
    ]
    inputs = [
        helper.make_tensor_value_info(name, TensorProto.INT64, ["batch_size", "sequence_length"])
        for name in ("input_ids", "attention_mask", "token_type_ids")
    ]
    outputs = [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch_size", 1])]
    graph = helper.make_graph(nodes, "tiny_cross_encoder", inputs, outputs)
    model = helper.make_model(
        graph,
        opset_imports=[helper.make_opsetid("", OPSET)],
        producer_name="scripts/make-test-cross-encoder.py",
        ir_version=IR_VERSION,
    )
    onnx.checker.check_model(model, full_check=True)
    return model


if __name__ == "__main__":
    OUTPUT.parent.mkdir(parents=True, exist_ok=True)
    onnx.save(build_model(), OUTPUT)
    print(f"wrote {OUTPUT} ({OUTPUT.stat().st_size} bytes)")
