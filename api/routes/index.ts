// Every resource's route module, in the order they are registered.
import type { FastifyInstance } from 'fastify';
import { markupRoutes } from './markup.js';
import { userRoutes } from './users.js';
import { tokenRoutes } from './tokens.js';
import { orgRoutes } from './orgs.js';
import { blockRoutes } from './blocks.js';
import { twoFactorRoutes } from './two-factor.js';
import { repoRoutes } from './repos.js';
import { forkRoutes } from './forks.js';
import { branchRoutes } from './branches.js';
import { branchProtectionRoutes } from './branch-protections.js';
import { commitRoutes } from './commits.js';
import { gitDataRoutes } from './git-data.js';
import { contentRoutes } from './contents.js';
import { rawRoutes } from './raw.js';
import { archiveRoutes } from './archive.js';
import { tagRoutes } from './tags.js';
import { tagProtectionRoutes } from './tag-protections.js';
import { userAccountRoutes } from './user-account.js';
import { repoPeopleRoutes } from './repo-people.js';
import { issueDeleteRoutes } from './issue-delete.js';
import { collaboratorRoutes } from './collaborators.js';
import { gitHttpRoutes } from './git-http.js';
import { pullRoutes } from './pulls.js';
import { pullDiffRoutes } from './pull-diff.js';
import { pullMergeRoutes } from './pull-merge.js';
import { mergeQueueRoutes } from './merge-queue.js';
import { labelRoutes } from './labels.js';
import { milestoneRoutes } from './milestones.js';
import { issueRoutes } from './issues.js';
import { commentRoutes } from './comments.js';
import { timelineRoutes } from './timeline.js';
import { dependencyRoutes } from './dependencies.js';
import { reviewRoutes } from './reviews.js';
import { reviewRequestRoutes } from './review-requests.js';
import { issueLabelRoutes } from './issue-labels.js';
import { reactionRoutes } from './reactions.js';
import { avatarRoutes } from './avatars.js';
import { statusRoutes } from './statuses.js';
import { metricsRoutes } from './metrics.js';
import { oauth2AppRoutes } from './oauth2-apps.js';
import { adminRoutes } from './admin.js';
import { orgDirectoryRoutes } from './org-directory.js';
import { orgMemberRoutes } from './org-members.js';
import { teamRoutes } from './teams.js';
import { teamRepoRoutes } from './team-repos.js';
import { repoListRoutes } from './repo-lists.js';
import { topicRoutes } from './topics.js';
import { searchRoutes } from './search.js';
import { settingsRoutes } from './settings.js';
import { hookRoutes } from './hooks.js';
import { hookDeliveryRoutes } from './hook-deliveries.js';
import { webRoutes } from '../web/index.js';

export const allRoutes: Array<(app: FastifyInstance) => Promise<void>> = [
  markupRoutes,
  userRoutes, userAccountRoutes, tokenRoutes, orgRoutes, blockRoutes, twoFactorRoutes,
  adminRoutes, orgDirectoryRoutes, orgMemberRoutes, teamRoutes, teamRepoRoutes, repoListRoutes, topicRoutes, searchRoutes, settingsRoutes,
  repoRoutes, forkRoutes, branchRoutes, branchProtectionRoutes, collaboratorRoutes, repoPeopleRoutes, gitHttpRoutes,
  commitRoutes, gitDataRoutes, contentRoutes, rawRoutes, archiveRoutes, tagRoutes, tagProtectionRoutes,
  pullDiffRoutes, pullRoutes, pullMergeRoutes, mergeQueueRoutes,
  labelRoutes, milestoneRoutes, issueRoutes, issueDeleteRoutes, issueLabelRoutes, commentRoutes, reactionRoutes, timelineRoutes, dependencyRoutes,
  reviewRoutes, reviewRequestRoutes, statusRoutes, avatarRoutes,
  hookRoutes, hookDeliveryRoutes,
  oauth2AppRoutes, webRoutes,
  metricsRoutes,
];
