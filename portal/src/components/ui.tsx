// Small shared pieces of every page. One concept, one place: look here before writing another.
import { useEffect, useRef, useState, type ReactNode } from 'react';
import { ApiError } from '../api/client';

/** A page: its heading is the document title too, and focus lands on it after navigation. */
export function Page({ title, actions, children }: { title: string; actions?: ReactNode; children: ReactNode }) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    document.title = `${title} · Skill Marketplace Gateway`;
    heading.current?.focus();
  }, [title]);
  return (
    <section className="page" aria-labelledby="page-title">
      <header className="page-header">
        <h1 id="page-title" ref={heading} tabIndex={-1}>
          {title}
        </h1>
        {actions ? <div className="page-actions">{actions}</div> : null}
      </header>
      {children}
    </section>
  );
}

/** What went wrong, from the problem document the gateway answered. */
export function ProblemNotice({ error }: { error: unknown }) {
  if (!error) return null;
  const problem = error instanceof ApiError ? error.problem : null;
  return (
    <div className="notice notice-error" role="alert">
      <strong>{problem?.title ?? 'Something went wrong'}</strong>
      {problem?.status ? <span className="muted"> ({problem.status})</span> : null}
      <p>{problem?.detail ?? (error instanceof Error ? error.message : String(error))}</p>
      {problem?.errors?.length ? (
        <ul>
          {problem.errors.map((e, i) => (
            <li key={i}>
              {e.pointer ? <code>{e.pointer}</code> : null} {e.detail ?? e.message}
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}

export function Loading({ what = 'Loading' }: { what?: string }) {
  return (
    <p className="muted" role="status">
      {what}…
    </p>
  );
}

/** A query's three states in one place: loading, failed, or its content. */
export function Loaded<T>({
  query,
  children,
}: {
  query: { isPending: boolean; error: unknown; data: T | undefined };
  children: (data: T) => ReactNode;
}) {
  if (query.error) return <ProblemNotice error={query.error} />;
  if (query.isPending || query.data === undefined) return <Loading />;
  return <>{children(query.data)}</>;
}

export const shortSha = (sha: string | null | undefined): string => (sha ? sha.slice(0, 12) : '—');

export function Sha({ sha }: { sha: string | null | undefined }) {
  return sha ? (
    <code title={sha} className="sha">
      {shortSha(sha)}
    </code>
  ) : (
    <span className="muted">none</span>
  );
}

/** An instant in the reader's locale, with the exact ISO form on hover. */
export function When({ at }: { at: string | null | undefined }) {
  if (!at) return <span className="muted">—</span>;
  const date = new Date(at);
  return (
    <time dateTime={at} title={at}>
      {date.toLocaleString()}
    </time>
  );
}

/**
 * A value shown once (a token, a secret) or a command to copy, with a copy button. `wrap`: the whole value
 * stays visible, wrapped over as many lines as it needs (a long command), never cut off at the box's edge.
 */
export function CopyField({
  label,
  value,
  multiline = false,
  wrap = false,
}: {
  label: string;
  value: string;
  multiline?: boolean;
  wrap?: boolean;
}) {
  const [copied, setCopied] = useState(false);
  const id = `copy-${label.replace(/\W+/g, '-').toLowerCase()}`;
  const copy = async () => {
    await navigator.clipboard.writeText(value).catch(() => undefined);
    setCopied(true);
  };
  return (
    <div className="copy-field">
      <label htmlFor={id}>{label}</label>
      <div className="copy-row">
        {wrap ? (
          <textarea id={id} className="copy-wrap" readOnly value={value} rows={value.split('\n').length} />
        ) : multiline ? (
          <textarea id={id} readOnly value={value} rows={Math.min(6, value.split('\n').length)} />
        ) : (
          <input id={id} readOnly value={value} />
        )}
        <button type="button" onClick={() => void copy()}>
          {copied ? 'Copied' : 'Copy'}
        </button>
      </div>
    </div>
  );
}

/** The states drawn in a tone (the ok ones good, the refused ones bad, the waiting ones warn); any other is neutral. */
const tones = {
  good: ['approved', 'served', 'pass', 'delivered'],
  bad: ['blocked', 'rejected', 'fail', 'failed', 'critical', 'high'],
  warn: ['held', 'pending', 'warn', 'medium'],
} as const;

const toneOf = (name: string) =>
  (Object.keys(tones) as Array<keyof typeof tones>).find((tone) => (tones[tone] as readonly string[]).includes(name));

/** A badge's classes for a state: the state's own (badge-held) and its tone, if it has one. */
export function badgeClass(state: string): string {
  const name = state.toLowerCase().replace(/[^a-z]+/g, '-');
  const tone = toneOf(name);
  return tone ? `badge badge-${name} tone-${tone}` : `badge badge-${name}`;
}

/** A state as a coloured badge; `label` is what a person reads (the state's words), the state picks the colour. */
export function StateBadge({ state, label }: { state: string; label?: string }) {
  return <span className={badgeClass(state)}>{label ?? state}</span>;
}

/** A select's (or a datalist's) options, one a value, each read as its label. */
export function Options<V extends string | number>({
  values,
  label = String,
}: {
  values: readonly V[];
  label?: (value: V) => ReactNode;
}) {
  return (
    <>
      {values.map((value) => (
        <option key={value} value={value}>
          {label(value)}
        </option>
      ))}
    </>
  );
}

export function Empty({ children }: { children: ReactNode }) {
  return <p className="empty muted">{children}</p>;
}

/** A table's column heads; a column shown only to some is false or null where it is left out. */
export function ColumnHeads({ columns }: { columns: ReadonlyArray<string | false | null> }) {
  return (
    <thead>
      <tr>
        {columns.map((column) =>
          column ? (
            <th key={column} scope="col">
              {column}
            </th>
          ) : null,
        )}
      </tr>
    </thead>
  );
}
