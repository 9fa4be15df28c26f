// Who is signed in and what their roles allow. The portal shows only the actions the roles allow; the
// server still enforces every one (docs/access.md, Roles).
import { useQuery } from '@tanstack/react-query';
import { createContext, useContext, type ReactNode } from 'react';
import { api, data, type Body } from './client';

export type Me = Body<'/api/v1/me', 'get'>;

export type Abilities = Readonly<{
  me: Me;
  admin: boolean;
  auditor: boolean;
  /** Ingest, approve, reject, waive, preview: an approver of that marketplace, or an admin. */
  approves(marketplace: string): boolean;
  /** Approves at least one marketplace (the review queue is worth showing). */
  reviewer: boolean;
}>;

export function abilitiesOf(me: Me): Abilities {
  const admin = me.roles.some((r) => r.role === 'admin');
  const approved = new Set(me.roles.filter((r) => r.role === 'approver').map((r) => r.marketplace));
  return {
    me,
    admin,
    auditor: admin || me.roles.some((r) => r.role === 'auditor'),
    approves: (marketplace) => admin || approved.has(marketplace),
    reviewer: admin || approved.size > 0,
  };
}

const SessionContext = createContext<Abilities | null>(null);

export function useSession(): Abilities {
  const session = useContext(SessionContext);
  if (!session) throw new Error('useSession outside <SessionProvider>');
  return session;
}

export const meQuery = () => ({ queryKey: ['me'], queryFn: () => data(api.GET('/api/v1/me')) });

export function SessionProvider({ me, children }: { me: Me; children: ReactNode }) {
  return <SessionContext value={abilitiesOf(me)}>{children}</SessionContext>;
}

export const useMe = () => useQuery(meQuery());
