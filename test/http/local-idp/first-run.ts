// A gateway of a first run: no identity provider, no development hatch, the built-in issuer at
// /local-idp; and a browser (a cookie jar, redirects followed by hand) that signs in through it.
import { spawn } from 'node:child_process';
import type { Test } from 'tap';
import { loadConfig } from '../../../src/adapters/config/load.ts';
import type { GatewayConfig } from '../../../src/adapters/config/schema.ts';
import { testDatabase } from '../../support/database.ts';
import { startOnConfig, type TestGateway } from '../../support/gateway.ts';
import { fetchFrom } from '../../support/local-address.ts';
import { GatewayBrowser } from '../../support/oidc.ts';

export type FirstRun = Readonly<{
  gateway: TestGateway;
  config: GatewayConfig;
  baseUrl: string;
  /** What the gateway printed on its console for the operator (the first password). */
  notices: string[];
  /** The password the banner showed, if it showed one. */
  password: string | undefined;
}>;

export const bannerPassword = (text: string): string | undefined => /^ {2}password: (\S+)$/m.exec(text)?.[1];

export async function firstRunConfig(t: Test, env: Record<string, string> = {}): Promise<GatewayConfig> {
  const { url } = await testDatabase(t);
  return loadConfig({
    env: {
      GATEWAY_DATABASE_URL: url,
      GATEWAY_DATA_DIR: t.testdir(),
      PORT: '0',
      GATEWAY_LOG_LEVEL: 'silent',
      // As in testConfig: a command waits for its read models as long as a loaded machine needs.
      GATEWAY_PROJECTIONS_WAIT_TIMEOUT: '30s',
      ...env,
    },
    cwd: process.cwd(),
  });
}

export async function startFirstRun(t: Test, config?: GatewayConfig): Promise<FirstRun> {
  const notices: string[] = [];
  const cfg = config ?? (await firstRunConfig(t));
  const gateway = await startOnConfig(cfg, { notice: (text) => notices.push(text) });
  t.teardown(() => gateway.close());
  return { gateway, config: cfg, baseUrl: gateway.deps.baseUrl, notices, password: bannerPassword(notices.join('')) };
}

export type SignInResult = Readonly<{
  browser: GatewayBrowser;
  /** The gateway's answer at /login/oauth2/code/idp, or null when the issuer never sent the browser back. */
  callback: Response | null;
  /** The login form's answer to the password, when it did not send the browser on. */
  refused: { status: number; html: string; retryAfter: string | null } | null;
  steps: string[];
}>;

const formAction = (html: string) => /<form method="post" action="([^"]+)"/.exec(html)?.[1];

/**
 * GET /oauth2/authorization/idp → the issuer → its login form → POST user name and password →
 * back to /login/oauth2/code/idp (fetched: it sets GATEWAY_SESSION). `from`: the client's local address
 * (127.0.0.2 and up: another client, to the gateway); by default the system's choice, 127.0.0.1.
 */
export async function signIn(
  baseUrl: string,
  username: string,
  password: string,
  options: { from?: string } = {},
): Promise<SignInResult> {
  const browser = new GatewayBrowser(baseUrl, options.from ? fetchFrom(options.from) : undefined);
  const callbackPrefix = `${baseUrl}/login/oauth2/code/idp`;
  const steps: string[] = [];
  let url = `${baseUrl}/oauth2/authorization/idp`;
  let init: RequestInit = {};
  for (let step = 0; step < 20; step += 1) {
    const response = await browser.fetch(url, init);
    steps.push(`${init.method ?? 'GET'} ${new URL(url).pathname} ${response.status}`);
    if (url.startsWith(callbackPrefix)) return { browser, callback: response, refused: null, steps };
    const location = response.headers.get('location');
    if (response.status >= 300 && response.status < 400 && location) {
      await response.body?.cancel();
      url = new URL(location, url).href;
      init = {};
      continue;
    }
    const html = await response.text();
    const action = formAction(html);
    if (init.method === 'POST' || !action)
      return {
        browser,
        callback: null,
        refused: { status: response.status, html, retryAfter: response.headers.get('retry-after') },
        steps,
      };
    url = new URL(action, url).href;
    init = {
      method: 'POST',
      body: new URLSearchParams({ username, password }),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    };
  }
  throw new Error(`the sign-in did not end: ${steps.join(' → ')}`);
}

/** The real CLI (`node --import tsx src/main.ts ARGS`): its exit code, stdout and stderr apart. */
export function cli(
  args: readonly string[],
  env: Record<string, string>,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['src/main.ts', ...args], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('error', reject);
    child.once('exit', (code) => resolve({ code, stdout, stderr }));
  });
}
