import type { FastifyHelmetOptions } from '@fastify/helmet';

/**
 * Issue 19: security headers on every answer, and a strict Content-Security-Policy: no inline script
 * or style anywhere, nothing from another origin, the portal never framed. Upstream content reaches
 * the portal only as text (previews) or sanitised Markdown, so it has nothing to relax here.
 */
export const securityHeaders: FastifyHelmetOptions = {
  global: true,
  contentSecurityPolicy: {
    useDefaults: false,
    directives: {
      defaultSrc: ["'self'"],
      scriptSrc: ["'self'"],
      styleSrc: ["'self'"],
      imgSrc: ["'self'", 'data:'],
      fontSrc: ["'self'"],
      connectSrc: ["'self'"],
      objectSrc: ["'none'"],
      baseUri: ["'none'"],
      frameAncestors: ["'none'"],
      formAction: ["'self'"],
    },
  },
  // The gateway's own origin serves everything the portal loads; nothing needs cross-origin isolation.
  crossOriginEmbedderPolicy: false,
  // HSTS only means something over https, which a proxy in front of the gateway terminates.
  strictTransportSecurity: false,
};
