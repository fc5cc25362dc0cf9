-- What GET /health writes to, always in a transaction it rolls back (see check-storage.ts): one row,
-- so a probe on PGlite updates it in place, and on PostgreSQL truncates and refills it, which makes
-- the probe allocate a file page on the database's own disk and fail when that disk is full.
CREATE TABLE storage_probe (
  singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
  probed_at timestamptz NOT NULL DEFAULT now()
);
INSERT INTO storage_probe DEFAULT VALUES;
