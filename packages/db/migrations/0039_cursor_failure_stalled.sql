-- Whether a cursor's failure is the project's learning stall (learning_stalls): when a publish's
-- override clears the stall, the users it paused are resumed. They were found by their failure
-- message's first words, so rewording that message would have left them paused.
ALTER TABLE learning_cursors ADD COLUMN failure_stalled boolean NOT NULL DEFAULT false;
UPDATE learning_cursors SET failure_stalled = true WHERE failure_final AND starts_with(failure, 'learning is stalled');
