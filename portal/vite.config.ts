// The portal: built by `npm run build` into dist/portal, which the gateway serves at `/`.
// `npm run portal:dev` proxies the API to a gateway on 127.0.0.1:8080.
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

const gateway = 'http://127.0.0.1:8080';

export default defineConfig({
  root: import.meta.dirname,
  plugins: [react()],
  build: {
    outDir: '../dist/portal',
    emptyOutDir: true,
    // No inline script or style anywhere: the gateway's Content-Security-Policy forbids them.
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    // One script for the whole portal (app.tsx); its gzipped size is measured against the 300 KB budget by
    // bench/portal.ts, so Vite's warning only names the raw size.
    chunkSizeWarningLimit: 800,
  },
  server: {
    proxy: Object.fromEntries(
      ['/api', '/oauth2', '/login', '/local-idp', '/v3', '/git'].map((prefix) => [prefix, gateway]),
    ),
  },
});
