// Label and milestone rows to Gitea's JSON (services/convert/issue.go ToLabel, ToAPIMilestone).
import type { LabelRow } from '../../db/labels.js';
import type { MilestoneRow } from '../../db/milestones.js';
import { unixToIso } from '../../db/time.js';

export interface ApiLabel {
  id: number;
  name: string;
  exclusive: boolean;
  is_archived: boolean;
  color: string;
  description: string;
  url: string;
}

/** `url` names the label where it lives: the repository's or the organization's. */
export function toApiLabel(label: LabelRow, where: { repoFullName?: string; orgName?: string }, appUrl: string): ApiLabel {
  const base = where.orgName !== undefined
    ? `${appUrl}api/v1/orgs/${encodeURIComponent(where.orgName)}`
    : `${appUrl}api/v1/repos/${where.repoFullName ?? ''}`;
  return {
    id: label.id,
    name: label.name,
    exclusive: label.exclusive,
    is_archived: label.is_archived,
    color: label.color.replace(/^#/, ''),
    description: label.description,
    url: `${base}/labels/${label.id}`,
  };
}

export interface ApiMilestone {
  id: number;
  title: string;
  description: string;
  state: 'open' | 'closed';
  open_issues: number;
  closed_issues: number;
  created_at: string;
  updated_at: string | null;
  closed_at: string | null;
  due_on: string | null;
}

export function toApiMilestone(m: MilestoneRow): ApiMilestone {
  return {
    id: m.id,
    title: m.name,
    description: m.content,
    state: m.is_closed ? 'closed' : 'open',
    open_issues: m.num_issues - m.num_closed_issues,
    closed_issues: m.num_closed_issues,
    created_at: unixToIso(m.created_unix)!,
    updated_at: unixToIso(m.updated_unix),
    closed_at: m.is_closed && m.closed_unix ? unixToIso(m.closed_unix) : null,
    due_on: m.deadline_unix ? unixToIso(m.deadline_unix) : null,
  };
}
