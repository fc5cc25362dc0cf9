/** What counts as a profile fact when the project's configuration does not say. */
export const DEFAULT_PROFILE_DEFINITION =
  "Durable facts about the user that help an assistant serve them better next time: preferences, constraints, goals, " +
  "circumstances (role, location, tools, family, pets), and how they like to be answered. Not the task of the moment.";

/** What counts as a playbook when the project's configuration does not say. */
export const DEFAULT_PLAYBOOK_DEFINITION =
  "Reusable guidance for the agent: in a recognisable situation (trigger), what to do (content), and why (rationale). " +
  "Learn from user corrections, complaints, retries, and from the difference between the agent's response and the expert's.";

/**
 * What a successful session is when the project's configuration does not say. Shown by get_config
 * (clients of the peer service require the text) and given to the agent success judge.
 */
export const DEFAULT_SUCCESS_DEFINITION =
  "The agent understood what the user came for and, by the end of the session, answered it correctly or completed the action, " +
  "within the user's constraints, without leaving them to find the answer elsewhere.";
