-- The provider endpoint a collection reads and why, when it is a fallback (a Langfuse deployment
-- without /api/public/v2/observations, a LangSmith one without /v2/runs/query): the stream's status
-- says so rather than leaving the operator to find out when the deprecated endpoint is removed.
ALTER TABLE data_source_collections ADD COLUMN provider_endpoint text, ADD COLUMN provider_endpoint_note text;
