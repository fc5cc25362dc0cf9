-- Clustering similarity and deduplication threshold follow the embedding model's calibrated values
-- (its manifest) where a project set none, stored as null. Configurations saved before stored the
-- former fixed defaults (0.8 and 0.85, values for all-MiniLM-L6-v2) as if chosen; they become null,
-- so a project that never chose them follows the model. A project that chose exactly those values
-- cannot be told apart and follows the model too.
UPDATE project_config
SET config = jsonb_set(config, '{user_playbook_extractor_config,aggregation_config,clustering_similarity}', 'null')
WHERE config #> '{user_playbook_extractor_config,aggregation_config,clustering_similarity}' = '0.8';

UPDATE project_config
SET config = jsonb_set(config, '{user_playbook_extractor_config,deduplication_config,search_threshold}', 'null')
WHERE config #> '{user_playbook_extractor_config,deduplication_config,search_threshold}' = '0.85';

UPDATE project_config
SET config = jsonb_set(config, '{deduplication_config,search_threshold}', 'null')
WHERE config #> '{deduplication_config,search_threshold}' = '0.85';
