-- Publishing stores interactions without their vectors; the learning step embeds them in batches,
-- off the publish path. This index finds the ones still waiting, after a restart too.
CREATE INDEX interactions_without_embedding ON interactions (org_id, project_id, user_id, seq) WHERE embedding IS NULL;
