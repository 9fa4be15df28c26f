// What may be done to one marketplace besides ingest now (components/ingest-now.tsx): change the sync mode
// and remove it (admin). The server enforces each; these are shown only to those the roles allow.
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { useLocation } from 'wouter';
import { api, data } from '../../api/client';
import { ActionProblem } from '../../components/action-problem';
import { CopyField } from '../../components/ui';
import { setFlash } from './flash';
import { marketplacesKey, syncModes, type Marketplace, type SyncMode } from './queries';

/** Spec: POST /hooks/{marketplace} with X-Hub-Signature-256: sha256=<hex HMAC-SHA256 of the raw body>. */
function WebhookSettings({ name, secret }: { name: string; secret: string }) {
  return (
    <div className="notice notice-warn" role="status" aria-labelledby="webhook-settings-title">
      <h3 id="webhook-settings-title">Webhook settings to paste into the forge</h3>
      <p>
        The secret is shown this once: the gateway keeps it encrypted and never shows it again. Add a webhook on the
        upstream repository (GitHub, Gitea, GitLab…) for push events with these settings. The forge signs each call with{' '}
        <code>X-Hub-Signature-256</code>; the payload itself is ignored.
      </p>
      <CopyField label="Payload URL" value={`${location.origin}/hooks/${name}`} />
      <CopyField label="Content type" value="application/json" />
      <CopyField label="Secret" value={secret} />
    </div>
  );
}

export function SyncModeForm({ marketplace }: { marketplace: Marketplace }) {
  const queries = useQueryClient();
  const [mode, setMode] = useState<SyncMode>(marketplace.syncMode);
  const save = useMutation({
    mutationFn: (next: SyncMode) =>
      data(
        api.PUT('/api/v1/marketplaces/{name}/sync', {
          params: { path: { name: marketplace.name } },
          body: { mode: next },
        }),
      ),
    onSuccess: () => queries.invalidateQueries({ queryKey: marketplacesKey }),
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate(mode);
  };
  const secret = save.data?.webhookSecret;
  return (
    <section aria-labelledby="sync-title">
      <h2 id="sync-title">Sync mode</h2>
      <form className="stack" onSubmit={submit}>
        <fieldset className="mp-fieldset">
          <legend>How {marketplace.name} is ingested</legend>
          {syncModes.map(({ mode: option, label }) => (
            <div className="row" key={option}>
              <input
                type="radio"
                id={`sync-${option}`}
                name="sync-mode"
                checked={mode === option}
                onChange={() => setMode(option)}
              />
              <label htmlFor={`sync-${option}`}>{label}</label>
            </div>
          ))}
        </fieldset>
        {marketplace.syncMode === 'webhook' && mode === 'webhook' && !secret ? (
          <p className="muted">
            In webhook mode: the forge posts to <code>{`${location.origin}/hooks/${marketplace.name}`}</code>. The
            secret was shown once when webhook mode was entered; to issue a new one, switch to another mode and back.
          </p>
        ) : null}
        <ActionProblem error={save.error} />
        <div className="row">
          <button type="submit" disabled={save.isPending || mode === marketplace.syncMode}>
            {save.isPending ? 'Saving…' : 'Save sync mode'}
          </button>
        </div>
      </form>
      {secret ? <WebhookSettings name={marketplace.name} secret={secret} /> : null}
    </section>
  );
}

export function RemoveMarketplace({ name }: { name: string }) {
  const queries = useQueryClient();
  const [, navigate] = useLocation();
  const [confirming, setConfirming] = useState(false);
  const [reason, setReason] = useState('');
  const remove = useMutation({
    mutationFn: () =>
      data(api.DELETE('/api/v1/marketplaces/{name}', { params: { path: { name } }, body: { reason: reason.trim() } })),
    onSuccess: async (removed) => {
      await queries.invalidateQueries({ queryKey: marketplacesKey });
      const withdrawn = removed.withdrawnSnapshotIds.length;
      setFlash(
        `Removed ${removed.name}` +
          (withdrawn ? `; ${withdrawn} approved snapshot${withdrawn === 1 ? '' : 's'} withdrawn.` : '.'),
      );
      navigate('~/marketplaces');
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (reason.trim()) remove.mutate();
  };
  return (
    <section aria-labelledby="remove-title">
      <h2 id="remove-title">Remove</h2>
      <p>
        Removal withdraws every approved snapshot, removes the publish grant for {name} from all tokens, and stops
        serving and syncing it. The record, its snapshots and the ledger are kept.
      </p>
      {confirming ? (
        <form className="stack" onSubmit={submit}>
          <label htmlFor="remove-reason">Reason (recorded on the ledger)</label>
          <textarea
            id="remove-reason"
            autoFocus
            required
            rows={3}
            value={reason}
            onChange={(e) => setReason(e.target.value)}
          />
          <ActionProblem error={remove.error} />
          <div className="row">
            <button type="submit" className="danger" disabled={remove.isPending || !reason.trim()}>
              {remove.isPending ? 'Removing…' : `Remove ${name}`}
            </button>
            <button type="button" className="secondary" onClick={() => setConfirming(false)}>
              Cancel
            </button>
          </div>
        </form>
      ) : (
        <button type="button" className="danger" onClick={() => setConfirming(true)}>
          Remove this marketplace…
        </button>
      )}
    </section>
  );
}
