import { addAgentPlaybook } from "./add-agent-playbook.ts";
import { addUserPlaybook } from "./add-user-playbook.ts";
import { deleteAgentPlaybook } from "./delete-agent-playbook.ts";
import { deleteAgentPlaybooksByIds } from "./delete-agent-playbooks-by-ids.ts";
import { deleteAllAgentPlaybooks } from "./delete-all-agent-playbooks.ts";
import { deleteAllPlaybooks } from "./delete-all-playbooks.ts";
import { deleteAllUserPlaybooks } from "./delete-all-user-playbooks.ts";
import { deleteUserPlaybook } from "./delete-user-playbook.ts";
import { deleteUserPlaybooksByIds } from "./delete-user-playbooks-by-ids.ts";
import { getAgentPlaybooks } from "./get-agent-playbooks.ts";
import { getUserPlaybooks } from "./get-user-playbooks.ts";
import { searchAgentPlaybooks } from "./search-agent-playbooks.ts";
import { searchUserPlaybooks } from "./search-user-playbooks.ts";
import { updateAgentPlaybook } from "./update-agent-playbook.ts";
import { updateAgentPlaybookStatus } from "./update-agent-playbook-status.ts";
import { updateUserPlaybook } from "./update-user-playbook.ts";
import { reviewUserPlaybooks } from "./review-user-playbooks.ts";

export const playbookOperations = [
  reviewUserPlaybooks,
  addUserPlaybook,
  getUserPlaybooks,
  searchUserPlaybooks,
  updateUserPlaybook,
  deleteUserPlaybook,
  deleteUserPlaybooksByIds,
  deleteAllUserPlaybooks,
  addAgentPlaybook,
  getAgentPlaybooks,
  searchAgentPlaybooks,
  updateAgentPlaybook,
  updateAgentPlaybookStatus,
  deleteAgentPlaybook,
  deleteAgentPlaybooksByIds,
  deleteAllAgentPlaybooks,
  deleteAllPlaybooks,
];
