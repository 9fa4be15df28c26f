import type { IncomingMessage } from 'node:http';

/**
 * The CGI environment `git http-backend` answers one request in, over the bare repositories under `root`;
 * `extra` adds variables (REMOTE_USER enables receive-pack for an authenticated user).
 */
export const httpBackendEnv = (
  root: string,
  req: IncomingMessage,
  extra: Readonly<Record<string, string>> = {},
): Record<string, string> => {
  const url = new URL(req.url ?? '/', 'http://upstream');
  return {
    PATH: process.env.PATH ?? '',
    GIT_PROJECT_ROOT: root,
    GIT_HTTP_EXPORT_ALL: '1',
    ...extra,
    REQUEST_METHOD: req.method ?? 'GET',
    PATH_INFO: url.pathname,
    QUERY_STRING: url.search.slice(1),
    CONTENT_TYPE: req.headers['content-type'] ?? '',
    REMOTE_ADDR: '127.0.0.1',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    ...(req.headers['git-protocol'] ? { GIT_PROTOCOL: String(req.headers['git-protocol']) } : {}),
    ...(req.headers['content-encoding'] ? { HTTP_CONTENT_ENCODING: String(req.headers['content-encoding']) } : {}),
  };
};
