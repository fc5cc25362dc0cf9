-- The contract's optional completion hint (publish semantics 3): the caller said a session is
-- finished with this request (publish's session_finished, or POST /api/finalize_session). A request
-- carrying the hint makes the window that covers it due at once, like force_extraction, instead of
-- after the session inactivity deadline. It is stored, so a restart or another worker still sees it.
ALTER TABLE requests ADD COLUMN completion_hint boolean NOT NULL DEFAULT false;
