-- Publishing inserts interactions without a vector (the learning step embeds them later), and a new
-- row without a vector has no point in the vector index to add or remove. The row trigger of
-- migration 0012 still ran its PL/pgSQL function for each one (a call and a lookup of vector_sync
-- per interaction, about a twentieth of PostgreSQL's time under publish load, bench/publish.ts).
-- Inserts now fire it only for rows that arrive with a vector (an import, a rebuild); deletes and
-- updates fire it as before, so embedding a row later still notes it.
DROP TRIGGER interactions_vector_sync ON interactions;
CREATE TRIGGER interactions_vector_sync
  AFTER DELETE OR UPDATE OF embedding, embedding_model, user_id, request_id, seq
  ON interactions FOR EACH ROW EXECUTE FUNCTION note_vector_change('interaction_id');
CREATE TRIGGER interactions_vector_sync_embedded_insert
  AFTER INSERT ON interactions FOR EACH ROW WHEN (NEW.embedding IS NOT NULL)
  EXECUTE FUNCTION note_vector_change('interaction_id');
