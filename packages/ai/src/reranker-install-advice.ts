/** What to do when no reranking model is installed; install-reranker.sh says why none comes with the project. */
export const rerankerInstallAdvice =
  "Put a BERT cross-encoder exported to ONNX in RERANK_MODEL_DIR (default .cache/models/cross-encoder): model.onnx " +
  "with inputs input_ids, attention_mask and token_type_ids (int64 [batch, sequence]) and output logits [batch, 1], " +
  "for example onnx/model.onnx of Xenova/ms-marco-MiniLM-L-6-v2, and the model's tokenizer.json beside it. " +
  "scripts/install-reranker.sh <directory holding both files> copies and checks them; then restart the service.";
