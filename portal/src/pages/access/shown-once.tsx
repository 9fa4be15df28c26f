// A personal token's secret, shown once (it appears only in the answer that creates or rotates it, never
// again), with the commands that use it. It lives in this panel's state only: dismissing it or
// leaving the page forgets it. The panel itself serves a machine credential's secret too.
import { useEffect, useRef, useState, type ReactNode } from 'react';
import { CopyField, Options } from '../../components/ui';
import { cloneUrl } from '../../api/marketplaces';
import { claudeAddCommand, credentialHelperSnippet, gitCloneCommand } from './commands';

/**
 * A secret shown once, in a panel: focus moves to its heading whenever a secret appears, so a screen reader
 * announces it (and a rotation's new one); "I have copied it" dismisses it.
 */
export function SecretPanel({
  id,
  title,
  secret,
  onDone,
  children,
}: {
  /** The heading's id. */
  id: string;
  title: string;
  secret: unknown;
  onDone: () => void;
  children: ReactNode;
}) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), [secret]);
  return (
    <section className="notice notice-good shown-once" aria-labelledby={id}>
      <h3 id={id} ref={heading} tabIndex={-1}>
        {title}
      </h3>
      {children}
      <button type="button" className="secondary" onClick={onDone}>
        I have copied it
      </button>
    </section>
  );
}

export type Issued = Readonly<{ name: string; token: string; scopes: readonly string[]; rotated: boolean }>;

export function ShownOnce({
  issued,
  served,
  onDone,
}: {
  issued: Issued;
  /** Marketplaces the facade serves now (an unscoped token reaches each of them). */
  served: readonly string[];
  onDone: () => void;
}) {
  const choices = issued.scopes.length > 0 ? issued.scopes : served;
  const [marketplace, setMarketplace] = useState(choices[0] ?? 'marketplace');
  const origin = location.origin;
  return (
    <SecretPanel
      id="shown-once-title"
      title={`${issued.rotated ? 'Token rotated' : 'Token created'}: ${issued.name}`}
      secret={issued}
      onDone={onDone}
    >
      <p>
        <strong>Copy the token now: it is not shown again.</strong> The gateway keeps only a digest of it.
      </p>
      <CopyField label="Token" value={issued.token} wrap />
      {choices.length > 1 ? (
        <div className="row">
          <label htmlFor="command-marketplace">Marketplace for the commands</label>
          <select id="command-marketplace" value={marketplace} onChange={(e) => setMarketplace(e.target.value)}>
            <Options values={choices} />
          </select>
        </div>
      ) : null}
      <CopyField label="git clone" value={gitCloneCommand(origin, marketplace, issued.token)} wrap />
      <p className="muted">
        The token travels as an HTTP Basic header of this one command: it is not written into the URL or the
        clone&apos;s configuration.
      </p>
      <CopyField label="Credential helper setup" value={credentialHelperSnippet(origin, issued.token)} wrap />
      <p className="muted">
        Once per machine: git, and Claude Code through git, then find the token for {origin} by themselves.
        <code> store</code> keeps it in ~/.git-credentials; a keychain helper (osxkeychain, manager, libsecret) works as
        well.
      </p>
      <CopyField label="Claude Code" value={claudeAddCommand(origin, marketplace)} wrap />
      <p className="muted">
        Clone URL: <code>{cloneUrl(origin, marketplace)}</code>. Claude Code&apos;s background refresh runs git without
        credential helpers, so an update may need <code>claude plugin marketplace update</code> by hand.
      </p>
    </SecretPanel>
  );
}
