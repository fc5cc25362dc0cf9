import type { Endpoint, Endpoints } from "@als/contract";
import type { Route } from "../implement.ts";
import { accountRoutes } from "./account/index.ts";
import { adminRoutes } from "./admin/index.ts";
import { agentPlaybooksRoutes } from "./agent-playbooks/index.ts";
import { aggregationRoutes } from "./aggregation/index.ts";
import { configRoutes } from "./config/index.ts";
import { dataSourcesRoutes, projectDataSourcesRoutes } from "./data-sources/index.ts";
import { evaluationRoutes } from "./evaluation/index.ts";
import { experimentsRoutes } from "./experiments/index.ts";
import { generationRoutes } from "./generation/index.ts";
import { governanceRoutes } from "./governance/index.ts";
import { humanQuestionsRoutes } from "./human-questions/index.ts";
import { interactionsRoutes } from "./interactions/index.ts";
import { learningRoutes } from "./learning/index.ts";
import { onboardingRoutes } from "./onboarding/index.ts";
import { outcomesRoutes } from "./outcomes/index.ts";
import { playbooksRoutes } from "./playbooks/index.ts";
import { profilesRoutes } from "./profiles/index.ts";
import { requestsRoutes } from "./requests/index.ts";
import { searchRoutes } from "./search/index.ts";
import { serviceRoutes } from "./service/index.ts";
import { userPlaybooksRoutes } from "./user-playbooks/index.ts";
import { usersRoutes } from "./users/index.ts";

/** The implementation of every declared endpoint; the type makes a missing or mismatched one a compile error. */
export const routes = {
  generation: generationRoutes,
  config: configRoutes,
  service: serviceRoutes,
  admin: adminRoutes,
  profiles: profilesRoutes,
  aggregation: aggregationRoutes,
  search: searchRoutes,
  agentPlaybooks: agentPlaybooksRoutes,
  userPlaybooks: userPlaybooksRoutes,
  playbooks: playbooksRoutes,
  requests: requestsRoutes,
  interactions: interactionsRoutes,
  users: usersRoutes,
  learning: learningRoutes,
  outcomes: outcomesRoutes,
  governance: governanceRoutes,
  humanQuestions: humanQuestionsRoutes,
  experiments: experimentsRoutes,
  evaluation: evaluationRoutes,
  onboarding: onboardingRoutes,
  account: accountRoutes,
  dataSources: dataSourcesRoutes,
  projectDataSources: projectDataSourcesRoutes,
} satisfies { [R in keyof Endpoints]: { [A in keyof Endpoints[R]]: Endpoints[R][A] extends Endpoint ? Route<Endpoints[R][A]> : never } };

/** Every route, for the REST server, the tRPC router and the OpenAPI document. */
export const routeList: Route[] = Object.values(routes).flatMap((resource) => Object.values(resource) as Route[]);
