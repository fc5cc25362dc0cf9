-- A regenerate job may be cancelled (DELETE /api/evaluations/regenerate/{job_id}): the status is the
-- durable record a worker meets at its next commit, and a cancelled job is never claimed again.
ALTER TABLE evaluation_jobs DROP CONSTRAINT evaluation_jobs_status_check;
ALTER TABLE evaluation_jobs ADD CONSTRAINT evaluation_jobs_status_check
  CHECK (status IN ('queued', 'running', 'retrying', 'succeeded', 'failed', 'cancelled'));
