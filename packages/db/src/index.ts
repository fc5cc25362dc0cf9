export { checkFreeSpace, checkStorage } from "./check-storage.ts";
export * from "./driver.ts";
export {
  listenForNotifications,
  type NotificationHandlers,
  type NotificationListener,
  type NotificationListenerOptions,
} from "./drivers/postgres-notifications.ts";
export { migrate, migrationsDigest } from "./migrate.ts";
export * from "./open.ts";
export { isAfterEarlierFailure, pipelined } from "./pipelined.ts";
export type { PoolStats } from "./pool-stats.ts";
export { guardProcessAgainstStorageFailures } from "./process-guard.ts";
export type { AgentPlaybookRecord } from "./queries/agent-playbooks.ts";
export * as agentPlaybooks from "./queries/agent-playbooks.ts";
export type { AggregationInput, OperationRecord, OperationStatus } from "./queries/aggregation.ts";
export * as aggregation from "./queries/aggregation.ts";
export type { ApiKeyAccess, ApiKeyRecord } from "./queries/api-keys.ts";
export * as apiKeys from "./queries/api-keys.ts";
export type { CollectionStateFigures, CollectionTraceCount } from "./queries/collection-figures.ts";
export * as collectionFigures from "./queries/collection-figures.ts";
export type {
  BackfillStatus,
  CollectionInsert,
  CollectionRecord,
  CollectionState,
  ImportOutcome,
  ImportPhase,
  OutcomeCounts,
} from "./queries/data-source-collections.ts";
export * as dataSourceCollections from "./queries/data-source-collections.ts";
export type { HeldRecord } from "./queries/data-source-held.ts";
export * as dataSourceHeld from "./queries/data-source-held.ts";
export type { ExternalTraceKey, ReceiptRecord } from "./queries/data-source-receipts.ts";
export * as dataSourceReceipts from "./queries/data-source-receipts.ts";
export type { SampleRecord, SampleStatus } from "./queries/data-source-samples.ts";
export * as dataSourceSamples from "./queries/data-source-samples.ts";
export type { ConnectionRecord, MappingDraftRecord, StreamRecord } from "./queries/data-sources.ts";
export * as dataSources from "./queries/data-sources.ts";
export type { ExpandedTable, PendingExpansion } from "./queries/document-expansion.ts";
export * as documentExpansion from "./queries/document-expansion.ts";
export * as emailVerifications from "./queries/email-verifications.ts";
export type { EvaluationJobRecord, EvaluationJobStatus } from "./queries/evaluation-jobs.ts";
export * as evaluationJobs from "./queries/evaluation-jobs.ts";
export * as evaluationOverview from "./queries/evaluation-overview.ts";
export type {
  EvaluationSessionRecord,
  LearningResultInsert,
  LearningResultRecord,
  SessionActivity,
  SessionRequestRecord,
  ShadowVerdictInsert,
  ShadowVerdictRecord,
  SuccessResultInsert,
  SuccessResultRecord,
} from "./queries/evaluations.ts";
export * as evaluations from "./queries/evaluations.ts";
export type { ExtractionRunRecord } from "./queries/extraction-runs.ts";
export * as extractionRuns from "./queries/extraction-runs.ts";
export type { GenerationProgress, GenerationRunOf, GenerationRunRecord, GenerationWork } from "./queries/generation-runs.ts";
export * as generationRuns from "./queries/generation-runs.ts";
export type { HeldWindow, Recovery } from "./queries/held-windows.ts";
export * as heldWindows from "./queries/held-windows.ts";
export type { IdempotencyKeyInsert, IdempotencyKeyRecord } from "./queries/idempotency-keys.ts";
export * as idempotencyKeys from "./queries/idempotency-keys.ts";
export type { InteractionInsert, InteractionRecord } from "./queries/interactions.ts";
export * as interactions from "./queries/interactions.ts";
export type { InvitationRecord, InvitedRole } from "./queries/invitations.ts";
export * as invitations from "./queries/invitations.ts";
export type { CursorRecord, Extractor, LlmUsageRecord, LlmUsageRow, PendingSummary, StallRecord } from "./queries/learning.ts";
export * as learning from "./queries/learning.ts";
export * as learningHnsw from "./queries/learning-hnsw.ts";
export type { RunStatus } from "./queries/leased-runs.ts";
export type { LiveSession, SessionKind } from "./queries/login-sessions.ts";
export * as loginSessions from "./queries/login-sessions.ts";
export type { MemberInsert, MemberRecord, MemberRole } from "./queries/members.ts";
export * as members from "./queries/members.ts";
export type { OidcSignInRecord } from "./queries/oidc-sign-ins.ts";
export * as oidcSignIns from "./queries/oidc-sign-ins.ts";
export type { ConversationRequest, LearningOfUser } from "./queries/onboarding-evidence.ts";
export * as onboardingEvidence from "./queries/onboarding-evidence.ts";
export type { OnboardingRunRecord } from "./queries/onboarding-runs.ts";
export * as onboardingRuns from "./queries/onboarding-runs.ts";
export type { OrganizationRecord, ProjectRecord } from "./queries/organizations.ts";
export * as organizations from "./queries/organizations.ts";
export type { OutcomeActivity, OutcomeInferenceRecord } from "./queries/outcome-inferences.ts";
export * as outcomeInferences from "./queries/outcome-inferences.ts";
export { Params, VectorParam, vectorFromBinary, vectorLiteral } from "./queries/params.ts";
export type { NewToolCall, PendingToolCallRecord, PendingToolCallStatus, Settlement } from "./queries/pending-tool-calls.ts";
export * as pendingToolCalls from "./queries/pending-tool-calls.ts";
export * as physicalRemoval from "./queries/physical-removal.ts";
export * as plannerStatistics from "./queries/planner-statistics.ts";
export type { PlaybookEdit, PlaybookFilters, PlaybookSearch, PlaybookText } from "./queries/playbook-query.ts";
export type { ReviewDecision, ReviewDecisionRow } from "./queries/playbook-reviews.ts";
export * as playbookReviews from "./queries/playbook-reviews.ts";
export * as profileChangeLog from "./queries/profile-change-log.ts";
export type { ProfileFilters, ProfileRecord, ProfileStatus, ScoredProfile } from "./queries/profiles.ts";
export * as profiles from "./queries/profiles.ts";
export * as projectConfig from "./queries/project-config.ts";
export type { PurgeOperationRecord, PurgePhase, PurgeProgress } from "./queries/purge-operations.ts";
export * as purgeOperations from "./queries/purge-operations.ts";
export { QueryLexemes } from "./queries/query-lexemes.ts";
export {
  commonLexemes,
  FUSION,
  type FusedFound,
  nearestSql,
  type RankedQuery,
  type RankedScores,
  rankedArmDepth,
  type SearchMode,
} from "./queries/ranked-search.ts";
export type { DeletedRequests, RequestRecord } from "./queries/requests.ts";
export * as requests from "./queries/requests.ts";
export type { ArmCounts, ExperimentRecord } from "./queries/retrieval-experiments.ts";
export * as retrievalExperiments from "./queries/retrieval-experiments.ts";
export type { SearchEvidence } from "./queries/search-evidence.ts";
export * as searchEvidence from "./queries/search-evidence.ts";
export type { ServedItem, ServedKind } from "./queries/search-sessions.ts";
export * as searchSessions from "./queries/search-sessions.ts";
export type { DurableWorkCount, DurableWorkKind, DurableWorkStatus, ProjectLearningLag } from "./queries/service-backlog.ts";
export * as serviceBacklog from "./queries/service-backlog.ts";
export * as serviceSecrets from "./queries/service-secrets.ts";
export type { ListedSessionOutcome, OutcomeFilters, SessionOutcomeRecord } from "./queries/session-outcomes.ts";
export * as sessionOutcomes from "./queries/session-outcomes.ts";
export type { SessionTimerState, SessionTimerTable } from "./queries/session-timers.ts";
export * as sessionTimers from "./queries/session-timers.ts";
export * as signInAttempts from "./queries/sign-in-attempts.ts";
export type { EmbeddedKind, StaleRow } from "./queries/stale-embeddings.ts";
export * as staleEmbeddings from "./queries/stale-embeddings.ts";
export type { SubjectSection } from "./queries/subject-data.ts";
export * as subjectData from "./queries/subject-data.ts";
export type { UserPlaybookRecord } from "./queries/user-playbooks.ts";
export * as userPlaybooks from "./queries/user-playbooks.ts";
export * as vectorChangeLog from "./queries/vector-change-log.ts";
export type { OutboxEntry } from "./queries/vector-outbox.ts";
export * as vectorOutbox from "./queries/vector-outbox.ts";
export * from "./scope.ts";
export * from "./storage-failure.ts";
