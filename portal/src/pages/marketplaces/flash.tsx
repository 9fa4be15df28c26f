// A one-shot message carried across one in-portal navigation (registered, removed): kept in memory
// only, consumed by the page that shows it, gone on reload. Nothing goes to web storage. Warnings (what
// a registration found wrong with the upstream) travel with it and are shown apart, as warnings.
let pending: Flashed | null = null;

export type Flashed = Readonly<{ message: string; warnings: readonly string[] }>;

export function setFlash(message: string, warnings: readonly string[] = []): void {
  pending = { message, warnings };
}

export function readFlash(): Flashed | null {
  const flashed = pending;
  pending = null;
  return flashed;
}

/** The message as a confirmation, and each warning in a warning box that is announced. */
export function Flash({ flash }: { flash: Flashed | null }) {
  if (!flash) return null;
  return (
    <>
      <div className="notice notice-good" role="status">
        {flash.message}
      </div>
      {flash.warnings.length ? (
        <div className="notice notice-warn" role="alert">
          <strong>{flash.warnings.length === 1 ? 'Warning' : 'Warnings'}</strong>
          <ul className="mp-warnings">
            {flash.warnings.map((warning) => (
              <li key={warning}>{warning}</li>
            ))}
          </ul>
        </div>
      ) : null}
    </>
  );
}
