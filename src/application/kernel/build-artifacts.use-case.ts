// What the running build carries beside its code: the portal's files and the software bill of materials,
// found under the package root (the same from src/ run by tsx and from dist/src/ after a build).
import { join } from 'node:path';
import { packageRoot } from '../../adapters/system/package-root.ts';
import { readSbom, sbomFile, type Sbom } from '../../adapters/system/sbom.ts';

/** dist/portal under the package root. */
export const portalDirectory = (): string => join(packageRoot, 'dist', 'portal');

/** Where the build's SBOM is (dist/sbom.cdx.json under the package root). */
export const buildSbomFile = (): string => sbomFile();

/** The SBOM document at `file`, or null when the build made none. */
export const buildSbom = (file: string = sbomFile()): Sbom | null => readSbom(file);
