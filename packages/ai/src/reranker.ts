/** Orders documents by relevance to a query, reading each (query, document) pair whole. */
export interface Reranker {
  /**
   * One relevance score per document, in input order; higher is more relevant. Scores compare
   * only within one call. Rejects with RerankerUnavailableError when no model can be used.
   */
  score(query: string, documents: string[]): Promise<number[]>;
}
