-- A denser HNSW graph for the learnings searched project-wide. With pgvector's defaults (m 16,
-- ef_construction 64), the vector arm's recall@10 against an exact scan was 0.87 to 0.90 over
-- 100k agent or user playbooks for e5 query vectors (queries sit apart from the stored passages, so
-- the graph's shortcuts serve them worse); with m 32 and ef_construction 200 it is 0.995 at the
-- same hnsw.ef_search (100), for about 0.6 ms more a search and three times the build time
-- (bench/unified-search.ts, bench/README.md). Interactions keep the defaults: they are searched per
-- user and session, where the filters, not the graph, decide.
-- The graph of a large table fits in memory while it is built (a cap, not an allocation).
SET LOCAL maintenance_work_mem = '512MB';
DROP INDEX profiles_embedding_hnsw;
CREATE INDEX profiles_embedding_hnsw ON profiles USING hnsw (embedding vector_cosine_ops) WITH (m = 32, ef_construction = 200);
DROP INDEX user_playbooks_embedding_hnsw;
CREATE INDEX user_playbooks_embedding_hnsw ON user_playbooks USING hnsw (embedding vector_cosine_ops) WITH (m = 32, ef_construction = 200);
DROP INDEX agent_playbooks_embedding_hnsw;
CREATE INDEX agent_playbooks_embedding_hnsw ON agent_playbooks USING hnsw (embedding vector_cosine_ops) WITH (m = 32, ef_construction = 200);
