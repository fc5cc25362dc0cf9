import conversation from "./conversation.ts";
import initialize from "./initialize.ts";
import refresh from "./refresh.ts";
import start from "./start.ts";
import status from "./status.ts";
import update from "./update.ts";

export const onboardingRoutes = { status, initialize, start, refresh, conversation, update };
