import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from './package-root.ts';

/** The build's SBOM: dist/sbom.cdx.json under the package root, from src/ (tsx) or dist/src/ (built). */
export function sbomFile(): string {
  return join(packageRoot, 'dist', 'sbom.cdx.json');
}

export type Sbom = {
  /** The document as scripts/sbom.mjs wrote it, byte for byte. */
  readonly body: Buffer;
  /** CycloneDX's media type with the document's spec version (CycloneDX: `version` parameter). */
  readonly mediaType: string;
};

/**
 * The CycloneDX document made at build time from the lock files (scripts/sbom.mjs), or null
 * when this build has none (a checkout run from source before `npm run build`, or an unreadable file).
 */
export function readSbom(file: string = sbomFile()): Sbom | null {
  let body: Buffer;
  try {
    body = readFileSync(file);
  } catch {
    return null;
  }
  let specVersion: unknown;
  try {
    ({ specVersion } = JSON.parse(body.toString('utf8')) as { specVersion?: unknown });
  } catch {
    return null;
  }
  const version = typeof specVersion === 'string' && /^\d+\.\d+$/.test(specVersion) ? `; version=${specVersion}` : '';
  return { body, mediaType: `application/vnd.cyclonedx+json${version}` };
}
