import { accountEndpoints } from "./account.ts";
import { adminEndpoints } from "./admin.ts";
import { agentPlaybooksEndpoints } from "./agent-playbooks.ts";
import { aggregationEndpoints } from "./aggregation.ts";
import { configEndpoints } from "./config.ts";
import { dataSourcesEndpoints, projectDataSourcesEndpoints } from "./data-sources.ts";
import { evaluationEndpoints } from "./evaluation.ts";
import { experimentsEndpoints } from "./experiments.ts";
import { generationEndpoints } from "./generation.ts";
import { governanceEndpoints } from "./governance.ts";
import { humanQuestionsEndpoints } from "./human-questions.ts";
import { interactionsEndpoints } from "./interactions.ts";
import { learningEndpoints } from "./learning.ts";
import { onboardingEndpoints } from "./onboarding.ts";
import { outcomesEndpoints } from "./outcomes.ts";
import { playbooksEndpoints } from "./playbooks.ts";
import { profilesEndpoints } from "./profiles.ts";
import { requestsEndpoints } from "./requests.ts";
import { searchEndpoints } from "./search.ts";
import { serviceEndpoints } from "./service.ts";
import { userPlaybooksEndpoints } from "./user-playbooks.ts";
import { usersEndpoints } from "./users.ts";

/** Every endpoint of the REST contract this service serves, by resource. */
export const endpoints = {
  generation: generationEndpoints,
  config: configEndpoints,
  service: serviceEndpoints,
  admin: adminEndpoints,
  profiles: profilesEndpoints,
  aggregation: aggregationEndpoints,
  search: searchEndpoints,
  agentPlaybooks: agentPlaybooksEndpoints,
  userPlaybooks: userPlaybooksEndpoints,
  playbooks: playbooksEndpoints,
  requests: requestsEndpoints,
  interactions: interactionsEndpoints,
  users: usersEndpoints,
  learning: learningEndpoints,
  outcomes: outcomesEndpoints,
  account: accountEndpoints,
  governance: governanceEndpoints,
  humanQuestions: humanQuestionsEndpoints,
  experiments: experimentsEndpoints,
  evaluation: evaluationEndpoints,
  onboarding: onboardingEndpoints,
  dataSources: dataSourcesEndpoints,
  projectDataSources: projectDataSourcesEndpoints,
};
export type Endpoints = typeof endpoints;
