// Gitea's webhook event kinds (modules/webhook/type.go): what a hook may choose, how a chosen list is
// read from the API's `events` (routers/api/v1/utils/hook.go updateHookEvents), which kinds a hook
// hears, and the X-Gitea-Event header each kind is sent under.

/** Gitea's HookEventType values: the kind of each event this service records. */
export type HookEventType =
  | 'create' | 'delete' | 'push' | 'status'
  | 'issues' | 'issue_assign' | 'issue_label' | 'issue_milestone' | 'issue_comment'
  | 'pull_request' | 'pull_request_assign' | 'pull_request_label' | 'pull_request_milestone' | 'pull_request_comment'
  | 'pull_request_review_approved' | 'pull_request_review_rejected' | 'pull_request_review_comment'
  | 'pull_request_sync' | 'pull_request_review_request'
  /** The merge queue's speculative commits (GitHub's event; Gitea has no merge queue). */
  | 'merge_group';

/**
 * What a hook can choose, in the order the API lists them. Gitea keeps the choice in a map and
 * lists it in Go's random map order; a fixed order tells clients the same thing.
 */
export const CHOOSABLE_EVENTS = [
  'create', 'delete', 'fork', 'push', 'issues', 'issue_assign', 'issue_label', 'issue_milestone', 'issue_comment',
  'pull_request', 'pull_request_assign', 'pull_request_label', 'pull_request_milestone', 'pull_request_comment',
  'pull_request_review', 'pull_request_review_request', 'pull_request_sync',
  'wiki', 'repository', 'release', 'package', 'status', 'workflow_run', 'workflow_job', 'merge_group',
] as const;

const ISSUE_GROUP = ['issue_assign', 'issue_label', 'issue_milestone', 'issue_comment'];
const PULL_GROUP = ['pull_request_assign', 'pull_request_label', 'pull_request_milestone', 'pull_request_comment', 'pull_request_review_request', 'pull_request_sync'];
const PLAIN = ['create', 'push', 'delete', 'fork', 'repository', 'wiki', 'release', 'package', 'status', 'workflow_run', 'workflow_job', 'merge_group'];

/**
 * The kinds a hook hears for the API's `events`, as Gitea reads them: case-insensitive names;
 * `issues` and `pull_request` each switch on their whole group; `issues_only`,
 * `pull_request_only` and `pull_request_review` switch on one kind; unknown names are ignored;
 * nothing at all means `push`.
 */
export function chooseEvents(requested: readonly string[] | undefined): string[] {
  const given = new Set((requested?.length ? requested : ['push']).map((e) => e.toLowerCase()));
  const on = new Set<string>(PLAIN.filter((e) => given.has(e)));
  const issues = given.has('issues');
  if (issues || given.has('issues_only')) on.add('issues');
  for (const e of ISSUE_GROUP) if (issues || given.has(e)) on.add(e);
  const pulls = given.has('pull_request');
  if (pulls || given.has('pull_request_only')) on.add('pull_request');
  if (pulls || given.has('pull_request_review')) on.add('pull_request_review');
  for (const e of PULL_GROUP) if (pulls || given.has(e)) on.add(e);
  return CHOOSABLE_EVENTS.filter((e) => on.has(e));
}

/** Gitea's Webhook.HasEvent: the three review kinds are chosen together as `pull_request_review`. */
export function hookHears(chosen: readonly string[], event: HookEventType): boolean {
  const kind = event === 'pull_request_review_approved' || event === 'pull_request_review_rejected' || event === 'pull_request_review_comment'
    ? 'pull_request_review' : event;
  return chosen.includes(kind);
}

/** Gitea's HookEventType.Event(): the X-Gitea-Event (and X-GitHub-Event) header of a kind. */
export function headerEvent(event: HookEventType): string {
  switch (event) {
    case 'issues': case 'issue_assign': case 'issue_label': case 'issue_milestone':
      return 'issues';
    case 'pull_request': case 'pull_request_assign': case 'pull_request_label': case 'pull_request_milestone':
    case 'pull_request_sync': case 'pull_request_review_request':
      return 'pull_request';
    case 'issue_comment': case 'pull_request_comment':
      return 'issue_comment';
    case 'pull_request_review_approved':
      return 'pull_request_approved';
    case 'pull_request_review_rejected':
      return 'pull_request_rejected';
    case 'pull_request_review_comment':
      return 'pull_request_comment';
    default:
      return event;
  }
}

/** The events whose payload names a git reference, so that a hook's branch filter applies. */
export function filtersByBranch(event: HookEventType): boolean {
  return event === 'push' || event === 'create' || event === 'delete';
}
