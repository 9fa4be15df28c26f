import type { FastifyHelmetOptions } from '@fastify/helmet';

/** Strict-Transport-Security for an https base URL: a year, this host only (decision 353). */
const hstsMaxAgeSeconds = 365 * 24 * 60 * 60;

/**
 * Security headers on every answer, and a strict Content-Security-Policy: no inline script
 * or style anywhere, nothing from another origin, the portal never framed. Upstream content reaches
 * the portal only as text (previews) or sanitised Markdown, so it has nothing to relax here.
 */
export const securityHeaders = (baseUrl: string): FastifyHelmetOptions => ({
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
  // HSTS only means something over https, which a proxy in front of the gateway terminates: sent when the
  // base URL (what browsers reach) is https, whatever the hop from the proxy is. Subdomains and preload are
  // the operator's to decide for the whole domain, not the gateway's.
  strictTransportSecurity: baseUrl.startsWith('https:')
    ? { maxAge: hstsMaxAgeSeconds, includeSubDomains: false, preload: false }
    : false,
});
