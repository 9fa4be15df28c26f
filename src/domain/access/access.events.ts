import type { Event } from '../kernel/decider.ts';

export const credentialKinds = ['pat', 'idp'] as const;
export type CredentialKind = (typeof credentialKinds)[number];

// info-refs is appended when a client asks for refs (ref refs/heads/main, sha the
// resolved main); upload-pack once per wanted object when the packfile send begins.
export type InfoRefsServed = Event<
  'info-refs',
  {
    marketplaceId: number | null;
    marketplace: string;
    ref: string | null;
    sha: string | null;
    credentialKind: CredentialKind;
  }
>;

export type UploadPackServed = Event<
  'upload-pack',
  {
    marketplaceId: number | null;
    marketplace: string;
    wants: ReadonlyArray<{ sha: string; ref: string | null }>;
    credentialKind: CredentialKind;
  }
>;

export type AccessEvent = InfoRefsServed | UploadPackServed;
