// Instance settings clients read before they act (routers/api/v1/settings/settings.go). The API
// settings live in misc.ts. These answer Gitea 1.26's defaults, which the Go SDK's own tests
// expect; the reaction list is the set reactions accept.
import type { FastifyInstance } from 'fastify';
import { GeneralAttachmentSettings, GeneralRepoSettings, GeneralUISettings } from '../schemas/settings.js';

export const ALLOWED_REACTIONS = ['+1', '-1', 'laugh', 'hooray', 'confused', 'heart', 'rocket', 'eyes'] as const;
const CUSTOM_EMOJIS = ['git', 'gitea', 'codeberg', 'gitlab', 'github', 'gogs'];
const ATTACHMENT_TYPES = '.avif,.cpuprofile,.csv,.dmp,.docx,.fodg,.fodp,.fods,.fodt,.gif,.gz,.jpeg,.jpg,.json,.jsonc,.log,.md,.mov,.mp4,' +
  '.odf,.odg,.odp,.ods,.odt,.patch,.pdf,.png,.pptx,.svg,.tgz,.txt,.webm,.webp,.xls,.xlsx,.zip';

export async function settingsRoutes(app: FastifyInstance): Promise<void> {
  app.get('/api/v1/settings/ui', {
    schema: {
      operationId: 'getGeneralUISettings', tags: ['settings'], summary: "Get instance's global settings for ui",
      response: { 200: GeneralUISettings },
    },
  }, async () => ({ default_theme: 'gitea-auto', allowed_reactions: [...ALLOWED_REACTIONS], custom_emojis: CUSTOM_EMOJIS }));

  app.get('/api/v1/settings/repository', {
    schema: {
      operationId: 'getGeneralRepositorySettings', tags: ['settings'], summary: "Get instance's global settings for repositories",
      response: { 200: GeneralRepoSettings },
    },
  }, async () => ({
    mirrors_disabled: false, http_git_disabled: false, migrations_disabled: false, stars_disabled: false, time_tracking_disabled: false, lfs_disabled: true,
  }));

  app.get('/api/v1/settings/attachment', {
    schema: {
      operationId: 'getGeneralAttachmentSettings', tags: ['settings'], summary: "Get instance's global settings for Attachment",
      description: 'max_size is in MiB.',
      response: { 200: GeneralAttachmentSettings },
    },
  }, async () => ({ enabled: true, allowed_types: ATTACHMENT_TYPES, max_size: 100, max_files: 5 }));
}
