/**
 * Account associations as the store keeps them: a group's links to cloud accounts.
 */

/** A group's account association; its uid is the group's. */
export interface AccountAssociationRecord {
  uid: string;
  name: string;
  description: string;
  amazon?: { account: string };
  google?: { projectId: string; projectNumber: string };
  azure?: { tenantId: string; clientIds: Record<string, string> };
  /** installationId is an int64, kept as a decimal string. */
  github?: { installations: { installationId: string; name: string }[] };
  createTime: number;
  updateTime: number;
}
