// Wire schemas of the code routes (Gitea's modules/structs/repo_commit.go, repo_file.go,
// repo_tree.go, repo_tag.go, repo_branch.go options): commits, references, trees, contents and
// file changes, tags. Each model carries Gitea's definition name as its title.
import Type from 'typebox';
import { User } from './user.js';
import { PayloadCommitVerification } from './repo.js';

export const Nullable = <T extends object>(schema: T) => Type.Unsafe<unknown>({ ...schema, nullable: true, 'x-nullable': true });
const NullableString = Type.Unsafe<string | null>({ type: 'string', nullable: true, 'x-nullable': true });

export const CommitUser = Type.Object({ name: Type.String(), email: Type.String(), date: Type.String() }, { title: 'CommitUser' });
export const CommitMeta = Type.Object({ url: Type.String(), sha: Type.String(), created: Type.String() }, { title: 'CommitMeta' });

export const Commit = Type.Object({
  url: Type.String(),
  sha: Type.String(),
  created: Type.String(),
  html_url: Type.String(),
  commit: Type.Object({
    url: Type.String(), author: CommitUser, committer: CommitUser, message: Type.String(), tree: CommitMeta,
    verification: Nullable(PayloadCommitVerification),
  }, { title: 'RepoCommit' }),
  author: Nullable(User),
  committer: Nullable(User),
  parents: Type.Array(CommitMeta),
  files: Nullable(Type.Array(Type.Object({ filename: Type.String(), status: Type.String() }, { title: 'CommitAffectedFiles' }))),
  stats: Nullable(Type.Object({ total: Type.Integer(), additions: Type.Integer(), deletions: Type.Integer() }, { title: 'CommitStats' })),
}, { title: 'Commit' });

/** A boolean query value, read as Gitea's FormBool (api/decoding.ts): ParseBool's spellings or "on" are true, anything else false. */
export const GoBool = Type.Boolean();
export function goBool(value: boolean | undefined, fallback: boolean): boolean {
  return value ?? fallback;
}

export const CommitQuery = {
  stat: Type.Optional({ ...GoBool, description: 'include diff stats for every commit (default true)' }),
  verification: Type.Optional({ ...GoBool, description: 'include verification for every commit (default true)' }),
  files: Type.Optional({ ...GoBool, description: 'include a list of affected files for every commit (default true)' }),
};

export const Reference = Type.Object({
  ref: Type.String(),
  url: Type.String(),
  object: Type.Object({ type: Type.String(), sha: Type.String(), url: Type.String() }, { title: 'GitObject' }),
}, { title: 'Reference' });

export const GitTreeResponse = Type.Object({
  sha: Type.String(),
  url: Type.String(),
  tree: Nullable(Type.Array(Type.Object({
    path: Type.String(), mode: Type.String(), type: Type.String(), size: Type.Integer(), sha: Type.String(), url: Type.String(),
  }, { title: 'GitEntry' }))),
  truncated: Type.Boolean(),
  page: Type.Integer(),
  total_count: Type.Integer(),
}, { title: 'GitTreeResponse' });

export const GitBlobResponse = Type.Object({
  content: NullableString, encoding: NullableString, url: Type.String(), sha: Type.String(), size: Type.Integer(),
}, { title: 'GitBlobResponse' });

const FileLinksResponse = Type.Object({ self: NullableString, git: NullableString, html: NullableString }, { title: 'FileLinksResponse' });

export const ContentsResponse = Type.Object({
  name: Type.String(),
  path: Type.String(),
  sha: Type.String(),
  last_commit_sha: Type.Optional(Type.String()),
  last_committer_date: Type.Optional(Type.String()),
  last_author_date: Type.Optional(Type.String()),
  type: Type.String({ description: '`file`, `dir`, `symlink` or `submodule`' }),
  size: Type.Integer(),
  encoding: NullableString,
  content: NullableString,
  target: NullableString,
  url: NullableString,
  html_url: NullableString,
  git_url: NullableString,
  download_url: NullableString,
  submodule_git_url: NullableString,
  _links: FileLinksResponse,
}, { title: 'ContentsResponse' });

export const FileCommitResponse = Type.Object({
  url: Type.String(),
  sha: Type.String(),
  created: Type.String(),
  html_url: Type.String(),
  author: CommitUser,
  committer: CommitUser,
  parents: Type.Array(CommitMeta),
  message: Type.String(),
  tree: CommitMeta,
}, { title: 'FileCommitResponse' });

export const FileResponse = Type.Object({
  content: Nullable(ContentsResponse), commit: FileCommitResponse, verification: PayloadCommitVerification,
}, { title: 'FileResponse' });
export const FilesResponse = Type.Object({
  files: Type.Array(Nullable(ContentsResponse)), commit: FileCommitResponse, verification: PayloadCommitVerification,
}, { title: 'FilesResponse' });
export const FileDeleteResponse = Type.Object({
  content: Type.Null(), commit: FileCommitResponse, verification: PayloadCommitVerification,
}, { title: 'FileDeleteResponse' });

const Identity = Type.Object({
  name: Type.Optional(Type.String({ maxLength: 255 })),
  email: Type.Optional(Type.String({ maxLength: 255 })),
}, { title: 'Identity' });

const DateTime = Type.String({ maxLength: 64, description: 'RFC 3339 date-time' });

/** FileOptions, shared by every file change. */
const fileOptions = {
  message: Type.Optional(Type.String({ maxLength: 65536 })),
  branch: Type.Optional(Type.String({ maxLength: 100 })),
  new_branch: Type.Optional(Type.String({ maxLength: 100 })),
  force_push: Type.Optional(Type.Boolean()),
  author: Type.Optional(Identity),
  committer: Type.Optional(Identity),
  dates: Type.Optional(Type.Object({ author: Type.Optional(DateTime), committer: Type.Optional(DateTime) }, { title: 'CommitDateOptions' })),
  signoff: Type.Optional(Type.Boolean()),
};

const Base64 = Type.String({ description: 'base64 encoded content' });

export const CreateFileOptions = Type.Object({ ...fileOptions, content: Base64 }, { title: 'CreateFileOptions' });
export const UpdateFileOptions = Type.Object({
  ...fileOptions, content: Base64, sha: Type.Optional(Type.String({ maxLength: 64 })), from_path: Type.Optional(Type.String({ maxLength: 500 })),
}, { title: 'UpdateFileOptions' });
export const DeleteFileOptions = Type.Object({ ...fileOptions, sha: Type.String({ minLength: 1, maxLength: 64 }) }, { title: 'DeleteFileOptions' });
export const ChangeFilesOptions = Type.Object({
  ...fileOptions,
  files: Type.Array(Type.Object({
    operation: Type.Union(['create', 'update', 'upload', 'rename', 'delete'].map((o) => Type.Literal(o))),
    path: Type.String({ minLength: 1, maxLength: 500 }),
    content: Type.Optional(Base64),
    sha: Type.Optional(Type.String({ maxLength: 64 })),
    from_path: Type.Optional(Type.String({ maxLength: 500 })),
  }, { title: 'ChangeFileOperation' }), { maxItems: 100 }),
}, { title: 'ChangeFilesOptions' });

export const Tag = Type.Object({
  name: Type.String(),
  message: Type.String(),
  id: Type.String(),
  commit: CommitMeta,
  zipball_url: Type.Optional(Type.String()),
  tarball_url: Type.Optional(Type.String()),
}, { title: 'Tag' });

export const AnnotatedTag = Type.Object({
  tag: Type.String(),
  sha: Type.String(),
  url: Type.String(),
  message: Type.String(),
  tagger: CommitUser,
  object: Type.Object({ type: Type.String(), url: Type.String(), sha: Type.String() }, { title: 'AnnotatedTagObject' }),
  verification: PayloadCommitVerification,
}, { title: 'AnnotatedTag' });

export const CreateTagOption = Type.Object({
  tag_name: Type.String({ minLength: 1, maxLength: 255 }),
  message: Type.Optional(Type.String({ maxLength: 65536 })),
  target: Type.Optional(Type.String({ maxLength: 255 })),
}, { title: 'CreateTagOption' });

export const RenameBranchRepoOption = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 100, description: 'new branch name' }),
}, { title: 'RenameBranchRepoOption' });

export const UpdateBranchRepoOption = Type.Object({
  new_commit_id: Type.String({ minLength: 1, maxLength: 255, description: 'the commit (id or ref) the branch should point to' }),
  old_commit_id: Type.Optional(Type.String({ maxLength: 255, description: 'the commit the branch must point to now' })),
  force: Type.Optional(Type.Boolean({ description: 'allow a non-fast-forward move' })),
}, { title: 'UpdateBranchRepoOption' });
