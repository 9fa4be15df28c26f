import { reject } from '../../application/kernel/rejected.ts';
import { buildSbom, buildSbomFile } from '../../application/kernel/build-artifacts.use-case.ts';
import type { HttpApp } from '../http-deps.ts';

/**
 * GET /actuator/sbom is the SBOM document, authenticated (any caller the protected paths
 * accept: a session or a machine credential, like /actuator/prometheus). The running build's document is
 * read once, when the gateway starts; a build without one answers the problem sbom-not-built.
 */
export function sbomRoute(app: HttpApp, file: string = buildSbomFile()): void {
  const sbom = buildSbom(file);
  app.get(
    '/actuator/sbom',
    {
      schema: {
        tags: ['actuator'],
        summary: "The running build's software bill of materials (CycloneDX JSON)",
        description:
          'Made at build time from the lock files: the production dependencies and the libraries bundled into the portal.',
      },
    },
    async (_request, reply) => {
      if (!sbom)
        throw reject('sbom-not-built', 'this build carries no SBOM: run npm run build, then restart the gateway');
      return reply.type(sbom.mediaType).send(sbom.body);
    },
  );
}
