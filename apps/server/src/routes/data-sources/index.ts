import { endpoints } from "@als/contract";
import { implement } from "../../implement.ts";
import createConnection from "./create-connection.ts";
import deleteConnection from "./delete-connection.ts";
import discoverProjects from "./discover-projects.ts";
import getConnection from "./get-connection.ts";
import getMapping from "./get-mapping.ts";
import getSample from "./get-sample.ts";
import initializeMapping from "./initialize-mapping.ts";
import list from "./list.ts";
import preview from "./preview.ts";
import requestSample from "./request-sample.ts";
import rotateCredential from "./rotate-credential.ts";
import saveHistoryDraft from "./save-history-draft.ts";
import saveMapping from "./save-mapping.ts";
import selectStream from "./select-stream.ts";
import { keyBoundSetupContext, projectSetupContext } from "./setup-context.ts";
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
};
