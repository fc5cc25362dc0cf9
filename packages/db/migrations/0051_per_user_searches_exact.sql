-- Profiles and interactions are only ever searched one user's at a time (search_profiles and
-- search_interactions require user_id; extraction's similarity lookups are per user too). For such a
-- filter PostgreSQL reads the user's rows through their btree index and compares them exactly: with
-- 100 rows a user it chose that plan over the HNSW index already, and for a user holding 10,000 of
-- 100,000 profiles the exact plan took 8.5 ms where the HNSW scan it preferred took 15. The HNSW
-- indexes only cost writes: inserting 100 profiles took 115 ms with it and 20 without (m 32,
-- ef_construction 200), and every interaction's embedding paid for it on PGlite's one thread.
DROP INDEX IF EXISTS profiles_embedding_hnsw;
DROP INDEX IF EXISTS interactions_embedding_hnsw;
