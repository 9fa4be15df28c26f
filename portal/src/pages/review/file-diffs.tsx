// File diffs (GET /api/v1/snapshots/{id}/diff): what approving would change against the commit served
// now, one unified diff per file, shown as text with added and removed lines marked. A preview read: an
// approver of the marketplace or an admin; anyone else gets a plain notice, not a failed page.
import { useQuery } from '@tanstack/react-query';
import { Link } from 'wouter';
import { humanize } from '../../components/labels';
import { badgeClass, Empty, Loaded, Sha } from '../../components/ui';
import { forbidden, snapshotQuery } from './queries';

export const previewNeedsRole = 'File previews need the approver role for this marketplace, or the admin role.';

const lineClass = (line: string): string | undefined =>
  line.startsWith('+') && !line.startsWith('+++')
    ? 'diff-add'
    : line.startsWith('-') && !line.startsWith('---')
      ? 'diff-del'
      : undefined;

function UnifiedDiff({ text }: { text: string }) {
  return (
    <pre className="file diff">
      <code>
        {text.split('\n').map((line, i) => (
          <span key={i} className={['line', lineClass(line)].filter(Boolean).join(' ')}>
            {line}
          </span>
        ))}
      </code>
    </pre>
  );
}

export function FileDiffs({ id }: { id: number }) {
  const diff = useQuery({ ...snapshotQuery(id, 'diff'), retry: false });
  if (forbidden(diff.error)) return <p className="notice notice-warn">{previewNeedsRole}</p>;
  return (
    <Loaded query={diff}>
      {(d) => (
        <>
          <h2>File diffs</h2>
          <p>
            {d.baselineSha ? (
              <>
                Against the commit served now, <Sha sha={d.baselineSha} />.
              </>
            ) : (
              'Nothing is served yet: every file is added.'
            )}{' '}
            {d.entries.length} file{d.entries.length === 1 ? '' : 's'}
            {d.truncated ? ' (the list is cut at 500)' : ''}.
          </p>
          {d.entries.length ? null : <Empty>No file differs.</Empty>}
          {d.entries.map((e) => (
            <details key={e.path} className="file-diff" open={d.entries.length <= 20}>
              <summary>
                <span className={badgeClass(e.type)}>{humanize(e.type)}</span> <code>{e.path}</code>
              </summary>
              <p>
                {e.type === 'removed' ? null : (
                  <Link href={`/${String(id)}/file?path=${encodeURIComponent(e.path)}`}>Open {e.path}</Link>
                )}
                {e.truncated ? <span className="muted"> (diff cut at 128 KiB)</span> : null}
              </p>
              {e.binary ? <p className="muted">Binary file.</p> : <UnifiedDiff text={e.diff} />}
            </details>
          ))}
        </>
      )}
    </Loaded>
  );
}
