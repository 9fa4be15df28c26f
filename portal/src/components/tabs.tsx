// A section's own navigation: one link per page of the section (each its own address, so a link or a reload
// opens that tab), the current one marked for assistive technology. Inside a nested route, `href` is
// relative to the section; '/' is the section's own address, `base`.
import { Link, useLocation } from 'wouter';

export type SectionTab = Readonly<{ href: string; label: string; matches?: (at: string) => boolean }>;

export function SectionTabs({ label, base, tabs }: { label: string; base: string; tabs: readonly SectionTab[] }) {
  const [location] = useLocation();
  return (
    <nav className="tabs" aria-label={label}>
      {tabs.map((tab) => {
        const current = tab.matches ? tab.matches(location) : location === tab.href;
        return (
          <Link
            key={tab.href}
            href={tab.href === '/' ? `~${base}` : tab.href}
            aria-current={current ? 'page' : undefined}
          >
            {tab.label}
          </Link>
        );
      })}
    </nav>
  );
}
