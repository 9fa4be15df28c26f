// One file of a snapshot's pinned tree (GET /api/v1/snapshots/{id}/file?path=): numbered lines of text,
// each an element with id L<n> so /review/<id>/file?path=<path>#L<n> scrolls to and highlights that line.
// A Markdown file may also be read rendered, through react-markdown without raw HTML (upstream content is
// never live HTML in the portal), images left out so a preview fetches nothing.
import { useQuery } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import Markdown from 'react-markdown';
import { Link, useSearch } from 'wouter';
import { humanize } from '../../components/labels';
import { badgeClass, Loaded, Page, ProblemNotice } from '../../components/ui';
import { fileQuery, forbidden, splitLocation, vettingQuery } from './queries';
import './review.css';

/** The line the address names (#L12), read again whenever the hash changes. */
function useTargetLine(): number | null {
  const read = () => {
    const match = /^#L(\d+)$/.exec(window.location.hash);
    return match ? Number(match[1]) : null;
  };
  const [line, setLine] = useState(read);
  useEffect(() => {
    const onChange = () => setLine(read());
    window.addEventListener('hashchange', onChange);
    window.addEventListener('popstate', onChange);
    return () => {
      window.removeEventListener('hashchange', onChange);
      window.removeEventListener('popstate', onChange);
    };
  }, []);
  return line;
}

function NumberedLines({ text, target }: { text: string; target: number | null }) {
  const lines = text.endsWith('\n') ? text.slice(0, -1).split('\n') : text.split('\n');
  useEffect(() => {
    if (target === null) return;
    document.getElementById(`L${String(target)}`)?.scrollIntoView({ block: 'center' });
  }, [target, text]);
  return (
    <pre className="file" aria-label="File contents">
      <code>
        {lines.map((line, i) => {
          const n = i + 1;
          return (
            <span
              key={n}
              id={`L${String(n)}`}
              className={n === target ? 'line highlight' : 'line'}
              aria-current={n === target ? 'location' : undefined}
            >
              <a className="no" href={`#L${String(n)}`} aria-label={`Line ${String(n)}`}>
                {n}
              </a>
              {line}
            </span>
          );
        })}
      </code>
    </pre>
  );
}

function FindingsHere({ id, file }: { id: number; file: string }) {
  const report = useQuery(vettingQuery(id));
  const here = (report.data?.run?.verdicts ?? []).flatMap((v) =>
    v.findings
      .filter((f) => splitLocation(f.location).path === file)
      .map((f) => ({ ...f, connector: v.connector, line: splitLocation(f.location).line })),
  );
  if (!here.length) return null;
  return (
    <>
      <h2>Findings in this file</h2>
      <ul className="findings-here">
        {here.map((f, i) => (
          <li key={i}>
            <span className={badgeClass(f.severity)}>{humanize(f.severity)}</span> <code>{f.id}</code>{' '}
            {f.line ? <a href={`#L${String(f.line)}`}>line {f.line}</a> : null}: {f.message}
          </li>
        ))}
      </ul>
    </>
  );
}

const isMarkdown = (file: string): boolean => /\.(md|markdown)$/i.test(file);

/** A SKILL.md's YAML frontmatter (shown as text) apart from its Markdown body. */
function splitFrontmatter(text: string): { frontmatter: string | null; body: string } {
  const match = /^---\r?\n([\s\S]*?)\r?\n---\r?\n?/.exec(text);
  return match ? { frontmatter: match[1]!, body: text.slice(match[0].length) } : { frontmatter: null, body: text };
}

function RenderedMarkdown({ text }: { text: string }) {
  const { frontmatter, body } = splitFrontmatter(text);
  return (
    <div className="markdown">
      {frontmatter !== null ? (
        <pre className="frontmatter" aria-label="Frontmatter">
          {frontmatter}
        </pre>
      ) : null}
      <Markdown skipHtml disallowedElements={['img']}>
        {body}
      </Markdown>
    </div>
  );
}

export function FilePreview({ id }: { id: number }) {
  const file = new URLSearchParams(useSearch()).get('path') ?? '';
  const target = useTargetLine();
  const [rendered, setRendered] = useState(false);
  const query = useQuery({ ...fileQuery(id, file), enabled: file !== '' });
  return (
    <Page title={`File ${file || '(none)'}`}>
      <p>
        <Link href={`/${String(id)}`}>Back to snapshot {id}</Link>
      </p>
      {file === '' ? (
        <ProblemNotice error={new Error('No file named: the address needs ?path=<file>.')} />
      ) : forbidden(query.error) ? (
        <p className="notice notice-warn">
          Previewing files needs the approver role for this marketplace, or the admin role.
        </p>
      ) : (
        <Loaded query={query}>
          {(blob) => (
            <>
              <p className="muted">
                {blob.size} bytes{blob.truncated ? ' (cut at 128 KiB: the rest is not shown)' : ''}
              </p>
              <FindingsHere id={id} file={file} />
              {blob.binary || blob.text === undefined ? (
                <p className="notice">A binary file: there is no text to show.</p>
              ) : (
                <>
                  {isMarkdown(file) ? (
                    <div className="row">
                      <button type="button" className="secondary" onClick={() => setRendered(!rendered)}>
                        {rendered ? 'Show as numbered text' : 'Show as rendered Markdown'}
                      </button>
                    </div>
                  ) : null}
                  <h2>{rendered ? 'Rendered Markdown' : 'Text'}</h2>
                  {rendered ? (
                    <RenderedMarkdown text={blob.text} />
                  ) : (
                    <NumberedLines text={blob.text} target={target} />
                  )}
                </>
              )}
            </>
          )}
        </Loaded>
      )}
    </Page>
  );
}
