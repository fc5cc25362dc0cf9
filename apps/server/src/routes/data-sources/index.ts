import { endpoints } from "@als/contract";
import { implement } from "../../implement.ts";
import activate from "./activate.ts";
import createConnection from "./create-connection.ts";
import deleteConnection from "./delete-connection.ts";
import discoverProjects from "./discover-projects.ts";
import editTrafficFilters from "./edit-traffic-filters.ts";
import evidence from "./evidence.ts";
import extendBackfill from "./extend-backfill.ts";
import getConnection from "./get-connection.ts";
import getMapping from "./get-mapping.ts";
import getSample from "./get-sample.ts";
import initializeMapping from "./initialize-mapping.ts";
import list from "./list.ts";
import listHeld from "./list-held.ts";
import operate from "./operate.ts";
import preview from "./preview.ts";
import previewRetry from "./preview-retry.ts";
import promoteMapping from "./promote-mapping.ts";
import requestSample from "./request-sample.ts";
import retry from "./retry.ts";
import rotateCredential from "./rotate-credential.ts";
import saveHistoryDraft from "./save-history-draft.ts";
import saveMapping from "./save-mapping.ts";
import selectStream from "./select-stream.ts";
import { keyBoundSetupContext, projectSetupContext } from "./setup-context.ts";
import status from "./status.ts";
import suggest from "./suggest.ts";
import suggestionModel from "./suggestion-model.ts";
import upgradeMappingText from "./upgrade-mapping-text.ts";
import validateMapping from "./validate-mapping.ts";

/** `/api/data-sources/...`: the API key's project. */
export const dataSourcesRoutes = {
  list: implement(endpoints.dataSources.list, list),
  setupContext: implement(endpoints.dataSources.setupContext, keyBoundSetupContext),
  createConnection: implement(endpoints.dataSources.createConnection, createConnection),
  getConnection: implement(endpoints.dataSources.getConnection, getConnection),
  discoverProjects: implement(endpoints.dataSources.discoverProjects, discoverProjects),
  rotateCredential: implement(endpoints.dataSources.rotateCredential, rotateCredential),
  selectStream: implement(endpoints.dataSources.selectStream, selectStream),
  deleteConnection: implement(endpoints.dataSources.deleteConnection, deleteConnection),
  saveHistoryDraft: implement(endpoints.dataSources.saveHistoryDraft, saveHistoryDraft),
  requestSample: implement(endpoints.dataSources.requestSample, requestSample),
  getSample: implement(endpoints.dataSources.getSample, getSample),
  getMapping: implement(endpoints.dataSources.getMapping, getMapping),
  saveMapping: implement(endpoints.dataSources.saveMapping, saveMapping),
  upgradeMappingText: implement(endpoints.dataSources.upgradeMappingText, upgradeMappingText),
  preview: implement(endpoints.dataSources.preview, preview),
  validateMapping: implement(endpoints.dataSources.validateMapping, validateMapping),
  initializeMapping: implement(endpoints.dataSources.initializeMapping, initializeMapping),
  suggestionModel: implement(endpoints.dataSources.suggestionModel, suggestionModel),
  suggest: implement(endpoints.dataSources.suggest, suggest),
  activate: implement(endpoints.dataSources.activate, activate),
  status: implement(endpoints.dataSources.status, status),
  operate: implement(endpoints.dataSources.operate, operate),
  extendBackfill: implement(endpoints.dataSources.extendBackfill, extendBackfill),
  editTrafficFilters: implement(endpoints.dataSources.editTrafficFilters, editTrafficFilters),
  promoteMapping: implement(endpoints.dataSources.promoteMapping, promoteMapping),
  listHeld: implement(endpoints.dataSources.listHeld, listHeld),
  previewRetry: implement(endpoints.dataSources.previewRetry, previewRetry),
  retry: implement(endpoints.dataSources.retry, retry),
  evidence: implement(endpoints.dataSources.evidence, evidence),
};

/** `/api/projects/{project_id}/data-sources/...`: the same handlers; the URL's project is the scope authorizeRequest resolved. */
export const projectDataSourcesRoutes = {
  list: implement(endpoints.projectDataSources.list, list),
  setupContext: implement(endpoints.projectDataSources.setupContext, projectSetupContext),
  createConnection: implement(endpoints.projectDataSources.createConnection, createConnection),
  getConnection: implement(endpoints.projectDataSources.getConnection, getConnection),
  discoverProjects: implement(endpoints.projectDataSources.discoverProjects, discoverProjects),
  rotateCredential: implement(endpoints.projectDataSources.rotateCredential, rotateCredential),
  selectStream: implement(endpoints.projectDataSources.selectStream, selectStream),
  deleteConnection: implement(endpoints.projectDataSources.deleteConnection, deleteConnection),
  saveHistoryDraft: implement(endpoints.projectDataSources.saveHistoryDraft, saveHistoryDraft),
  requestSample: implement(endpoints.projectDataSources.requestSample, requestSample),
  getSample: implement(endpoints.projectDataSources.getSample, getSample),
  getMapping: implement(endpoints.projectDataSources.getMapping, getMapping),
  saveMapping: implement(endpoints.projectDataSources.saveMapping, saveMapping),
  upgradeMappingText: implement(endpoints.projectDataSources.upgradeMappingText, upgradeMappingText),
  preview: implement(endpoints.projectDataSources.preview, preview),
  validateMapping: implement(endpoints.projectDataSources.validateMapping, validateMapping),
  initializeMapping: implement(endpoints.projectDataSources.initializeMapping, initializeMapping),
  suggestionModel: implement(endpoints.projectDataSources.suggestionModel, suggestionModel),
  suggest: implement(endpoints.projectDataSources.suggest, suggest),
  activate: implement(endpoints.projectDataSources.activate, activate),
  status: implement(endpoints.projectDataSources.status, status),
  operate: implement(endpoints.projectDataSources.operate, operate),
  extendBackfill: implement(endpoints.projectDataSources.extendBackfill, extendBackfill),
  editTrafficFilters: implement(endpoints.projectDataSources.editTrafficFilters, editTrafficFilters),
  promoteMapping: implement(endpoints.projectDataSources.promoteMapping, promoteMapping),
  listHeld: implement(endpoints.projectDataSources.listHeld, listHeld),
  previewRetry: implement(endpoints.projectDataSources.previewRetry, previewRetry),
  retry: implement(endpoints.projectDataSources.retry, retry),
  evidence: implement(endpoints.projectDataSources.evidence, evidence),
};
