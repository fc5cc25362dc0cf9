-- How far a cursor's failure reaches: the stream's last position when the failing attempt judged it.
-- A request published after that has not been tried yet, so a final failure (a stall, no provider)
-- is not its verdict: without this, a request published with override_learning_stall read as
-- failed until a worker picked its user up, and wait_for_response gave up on it at its first look.
-- NULL (failures recorded before this column): the failure reaches every request waiting on it.
ALTER TABLE learning_cursors ADD COLUMN failed_through_seq bigint;
