// The portal's frame: a skip link, the navigation the signed-in roles can use, and the pages. Each
// section owns its routes under its own path (wouter's nested routes).
import { useQueryClient } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { Link, Route, Switch, useLocation } from 'wouter';
import { api } from './api/client';
import { useSession } from './api/session';
import { Page } from './components/ui';

// One script for every section, loaded with the page: no section waits for a script of its own after
// sign-in (React holds a lazily loaded section back up to 300 ms once a placeholder has shown), and the
// whole portal stays far below its budget (bench/portal.ts).
import Overview from './pages/overview/index';
import MarketplacePages from './pages/marketplaces/index';
import ReviewPages from './pages/review/index';
import AccessPages from './pages/access/index';
import PolicyPages from './pages/policy/index';
import AuditPages from './pages/audit/index';

function NavLink({ href, children }: { href: string; children: ReactNode }) {
  const [location] = useLocation();
  const current = href === '/' ? location === '/' : location === href || location.startsWith(`${href}/`);
  return (
    <Link href={href} aria-current={current ? 'page' : undefined} className={current ? 'current' : undefined}>
      {children}
    </Link>
  );
}

function SignOut() {
  const queries = useQueryClient();
  const signOut = async () => {
    await api.POST('/api/v1/logout');
    queries.clear();
    location.assign('/');
  };
  return (
    <button type="button" className="link-button" onClick={() => void signOut()}>
      Sign out
    </button>
  );
}

function Navigation() {
  const session = useSession();
  return (
    <nav aria-label="Main">
      <ul>
        <li>
          <NavLink href="/">Overview</NavLink>
        </li>
        <li>
          <NavLink href="/marketplaces">Marketplaces</NavLink>
        </li>
        {session.reviewer ? (
          <li>
            <NavLink href="/review">Review</NavLink>
          </li>
        ) : null}
        <li>
          <NavLink href="/access">Access</NavLink>
        </li>
        {session.auditor || session.reviewer ? (
          <li>
            <NavLink href="/policy">Policy</NavLink>
          </li>
        ) : null}
        {session.auditor ? (
          <li>
            <NavLink href="/audit">Audit</NavLink>
          </li>
        ) : null}
        <li>
          {/* The gateway's own page, outside the portal: the OpenAPI document and a console to try it. */}
          <a href="/docs">API reference</a>
        </li>
      </ul>
    </nav>
  );
}

function NotFound() {
  return (
    <Page title="Not found">
      <p>
        There is no page here. <Link href="/">Back to the overview</Link>.
      </p>
    </Page>
  );
}

export function App() {
  const session = useSession();
  return (
    <>
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="top">
        <Link href="/" className="brand">
          Skill Marketplace Gateway
        </Link>
        <Navigation />
        <div className="who">
          <span>
            Signed in as <strong>{session.me.username}</strong>
          </span>
          <SignOut />
        </div>
      </header>
      <main id="main">
        <Switch>
          <Route path="/" component={Overview} />
          <Route path="/marketplaces" nest component={MarketplacePages} />
          <Route path="/review" nest component={ReviewPages} />
          <Route path="/access" nest component={AccessPages} />
          <Route path="/policy" nest component={PolicyPages} />
          <Route path="/audit" nest component={AuditPages} />
          <Route component={NotFound} />
        </Switch>
      </main>
    </>
  );
}
