import agentSuccessResults from "./agent-success-results.ts";
import gradeOnDemand from "./grade-on-demand.ts";
import retrievedLearningResults from "./retrieved-learning-results.ts";

export const evaluationRoutes = { agentSuccessResults, retrievedLearningResults, gradeOnDemand };
