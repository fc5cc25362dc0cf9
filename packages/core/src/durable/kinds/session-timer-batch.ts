/** Sessions one reconciler pass takes per kind of session timer at most; the next pass (the wake-up timer's) takes the rest. */
export const SESSION_TIMER_BATCH = 500;
