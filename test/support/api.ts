import type { TestGateway } from './gateway.ts';

export type ApiAnswer = { status: number; headers: Headers; body: any; text: string };

/** A session client through the development hatch, echoing the XSRF cookie on state-changing calls. */
export function devSession(gw: Pick<TestGateway, 'fetch'>, user: string, groups?: string) {
  let xsrf: string | undefined;
  const call = async (method: string, path: string, body?: unknown): Promise<ApiAnswer> => {
    if (!xsrf)
      xsrf = /XSRF-TOKEN=([^;]+)/.exec((await gw.fetch('/actuator/health')).headers.get('set-cookie') ?? '')?.[1];
    const response = await gw.fetch(path, {
      method,
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      headers: {
        'x-dev-user': user,
        ...(groups ? { 'x-dev-groups': groups } : {}),
        cookie: `XSRF-TOKEN=${xsrf}`,
        'x-xsrf-token': xsrf!,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
    });
    const text = await response.text();
    let parsed: unknown = null;
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = null;
    }
    return { status: response.status, headers: response.headers, body: parsed, text };
  };
  return {
    get: (path: string) => call('GET', path),
    post: (path: string, body?: unknown) => call('POST', path, body),
    put: (path: string, body?: unknown) => call('PUT', path, body),
    patch: (path: string, body?: unknown) => call('PATCH', path, body),
    delete: (path: string, body?: unknown) => call('DELETE', path, body),
  };
}
