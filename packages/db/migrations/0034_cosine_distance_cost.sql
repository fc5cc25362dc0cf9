-- The planner's price of a cosine distance. pgvector declares cosine_distance(vector, vector) with
-- COST 1, the price of comparing two integers, while comparing two 384-dimension vectors costs
-- about fifty times that. Priced so, a project-wide search over 10k agent playbooks chose a
-- sequential scan computing every row's distance (28 ms) over the HNSW index (3 ms); at 50 it
-- takes the index, and searches narrowed to one user keep their own index, where the distances of
-- a hundred rows are cheaper than any graph walk (bench/unified-search.ts, bench/README.md).
-- Only the function's owner may change it: a service role that does not own the extension keeps
-- pgvector's price, and says so.
DO $$
BEGIN
  ALTER FUNCTION cosine_distance(vector, vector) COST 50;
EXCEPTION WHEN insufficient_privilege THEN
  RAISE NOTICE 'cosine_distance keeps COST 1: this role does not own the vector extension (see migration 0034)';
END
$$;
