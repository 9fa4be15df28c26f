// The Audit section's own navigation: one link per page, the current one marked for assistive technology.
import { SectionTabs } from '../../components/tabs';

const tabs = [
  { href: '/', label: 'Ledger', matches: (at: string) => at === '/' || at.startsWith('/entries/') },
  { href: '/time-travel', label: 'Time travel' },
  { href: '/delivery', label: 'Sinks and webhooks' },
  { href: '/adoption', label: 'Adoption' },
  { href: '/status', label: 'Estate, mirror, retention' },
] as const;

export function AuditTabs() {
  return <SectionTabs label="Audit pages" base="/audit" tabs={tabs} />;
}
