import type { HttpApp } from '../http-deps.ts';

/**
 * The gateway's icon, a gate on a shield, for the portal's tab and for the browsers and tools that ask for
 * `/favicon.ico` whatever the page says. Served to anyone (it says nothing) and cached for a day.
 */
export const faviconSvg = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32">
<path d="M16 2 4 6v9c0 7.2 5 12.8 12 15 7-2.2 12-7.8 12-15V6z" fill="#1f4e8c"/>
<path d="M10 23V13a6 6 0 0 1 12 0v10h-3v-9a3 3 0 0 0-6 0v9z" fill="#fff"/>
</svg>
`;

export function faviconRoutes(app: HttpApp): void {
  const icon = Buffer.from(faviconSvg);
  for (const url of ['/favicon.svg', '/favicon.ico'])
    app.get(url, { schema: { hide: true } }, (_request, reply) =>
      reply.header('cache-control', 'public, max-age=86400').type('image/svg+xml').send(icon),
    );
}
