// A one-shot message carried across one in-portal navigation (registered, removed): kept in memory
// only, consumed by the page that shows it, gone on reload. Nothing goes to web storage.
let pending: string | null = null;

export function setFlash(message: string): void {
  pending = message;
}

export function readFlash(): string | null {
  const message = pending;
  pending = null;
  return message;
}
