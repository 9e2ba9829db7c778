// Gitea's Tag (services/convert/convert.go ToTag): the archive links are the web ones, and the
// commit record names the tag's own id in its URL, as Gitea sends it.
import type { TagInfo } from '../../git/index.js';
import { goPathEscape } from './contents.js';

export function toApiTag(tag: TagInfo, links: { api: string; html: string }) {
  return {
    name: tag.name,
    message: tag.message.trim(),
    id: tag.id,
    commit: { url: `${links.api}/git/commits/${tag.id}`, sha: tag.target, created: tag.creator.date },
    zipball_url: `${links.html}/archive/${goPathEscape(`${tag.name}.zip`)}`,
    tarball_url: `${links.html}/archive/${goPathEscape(`${tag.name}.tar.gz`)}`,
  };
}
