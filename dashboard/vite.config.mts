// Builds the dashboard page into dist/dashboard, served by the API process under /dashboard
// (docs/dashboard.md, The page). Plain CSS files only: the CSP allows no inline style or script.
import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

// The folder of this file, whatever the working directory (Vite replaces import.meta.url here).
const root = decodeURIComponent(new URL('.', import.meta.url).pathname);

export default defineConfig({
  root,
  base: '/dashboard/',
  plugins: [react()],
  build: {
    outDir: `${root}../dist/dashboard`,
    emptyOutDir: true,
    // No inline <script> nor data: module preload polyfill: script-src 'self'.
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
    chunkSizeWarningLimit: 1200,
  },
});
