import agentSuccessResults from "./agent-success-results.ts";
import cancelRegenerate from "./cancel-regenerate.ts";
import gradeOnDemand from "./grade-on-demand.ts";
import overview from "./overview.ts";
import recentShadowComparisons from "./recent-shadow-comparisons.ts";
import regenerate from "./regenerate.ts";
import regenerateStatus from "./regenerate-status.ts";
import retrievedLearningResults from "./retrieved-learning-results.ts";

export const evaluationRoutes = {
  agentSuccessResults,
  retrievedLearningResults,
  gradeOnDemand,
  overview,
  recentShadowComparisons,
  regenerate,
  regenerateStatus,
  cancelRegenerate,
};
