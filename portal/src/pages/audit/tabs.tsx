// The Audit section's own navigation: one link per page, the current one marked for assistive technology.
import { Link, useLocation } from 'wouter';

const tabs = [
  { href: '/', label: 'Ledger', matches: (at: string) => at === '/' || at.startsWith('/entries/') },
  { href: '/delivery', label: 'Sinks and webhooks', matches: (at: string) => at === '/delivery' },
  { href: '/adoption', label: 'Adoption', matches: (at: string) => at === '/adoption' },
  { href: '/status', label: 'Estate, mirror, retention', matches: (at: string) => at === '/status' },
] as const;

export function AuditTabs() {
  const [location] = useLocation();
  return (
    <nav className="tabs" aria-label="Audit pages">
      {tabs.map((tab) => (
        <Link
          key={tab.href}
          href={tab.href === '/' ? '~/audit' : tab.href}
          aria-current={tab.matches(location) ? 'page' : undefined}
        >
          {tab.label}
        </Link>
      ))}
    </nav>
  );
}
