import { clearUserData } from "./clear-user-data.ts";
import { deleteAllInteractions } from "./delete-all-interactions.ts";
import { deleteRequest } from "./delete-request.ts";
import { deleteRequestsByIds } from "./delete-requests-by-ids.ts";
import { deleteSession } from "./delete-session.ts";
import { getAllInteractions } from "./get-all-interactions.ts";
import { getInteractions } from "./get-interactions.ts";
import { getRequests } from "./get-requests.ts";
import { learningStatus } from "./learning-status.ts";
import { publishInteraction } from "./publish-interaction.ts";
import { searchInteractions } from "./search-interactions.ts";

export const interactionOperations = [
  publishInteraction,
  getInteractions,
  getAllInteractions,
  searchInteractions,
  learningStatus,
  deleteAllInteractions,
  getRequests,
  deleteRequest,
  deleteSession,
  deleteRequestsByIds,
  clearUserData,
];
