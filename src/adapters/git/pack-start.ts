/**
 * Watches upload-pack's output for the start of the packfile, so that the ledger entry is appended
 * "when the send begins" (docs/facade.md, Accounting) and negotiation-only rounds record nothing.
 * v2: the `packfile` section line. v0/v1: the first side-band packet on band 1, or raw `PACK` after
 * the ACK/NAK lines when side-band was not negotiated.
 */
export class PackStartDetector {
  private buffer = Buffer.alloc(0);
  private done = false;
  started = false;

  private readonly version: 0 | 2;
  constructor(version: 0 | 2) {
    this.version = version;
  }

  /** Feeds output; returns true once the pack has started (and stays true). */
  feed(chunk: Buffer): boolean {
    if (this.started || this.done) return this.started;
    this.buffer = Buffer.concat([this.buffer, chunk]);
    let offset = 0;
    while (offset + 4 <= this.buffer.length) {
      const head = this.buffer.toString('latin1', offset, offset + 4);
      if (this.version === 0 && head === 'PACK') return this.markStarted();
      if (!/^[0-9a-f]{4}$/.test(head)) {
        this.done = true;
        return false;
      }
      const length = Number.parseInt(head, 16);
      if (length < 4) {
        offset += 4;
        continue;
      }
      if (offset + length > this.buffer.length) {
        // A side-band packet can be recognised from its first payload byte.
        if (this.version === 0 && offset + 5 <= this.buffer.length && this.buffer[offset + 4] === 1)
          return this.markStarted();
        break;
      }
      const payload = this.buffer.subarray(offset + 4, offset + length);
      if (this.version === 2 && payload.toString('latin1') === 'packfile\n') return this.markStarted();
      if (this.version === 0 && payload[0] === 1) return this.markStarted();
      offset += length;
    }
    this.buffer = this.buffer.subarray(offset);
    return false;
  }

  private markStarted(): boolean {
    this.started = true;
    this.buffer = Buffer.alloc(0);
    return true;
  }
}
