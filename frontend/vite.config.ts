import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';
import { compression } from 'vite-plugin-compression2';

const backend = 'http://127.0.0.1:8080';

export default defineConfig({
  plugins: [
    react(),
    // Each text file also as .br and .gz, made once here; the gateway and nginx send them as they are.
    compression({
      algorithms: ['brotliCompress', 'gzip'],
      include: /\.(js|css|html|svg|json|txt)$/,
      threshold: 1024,
    }),
  ],
  resolve: {
    // The form rules the server applies too (plain zod, no Node APIs); the section names without zod.
    alias: {
      '@raseed/forms': fileURLToPath(new URL('../services/kit/src/forms.ts', import.meta.url)),
      '@raseed/sections': fileURLToPath(new URL('../services/kit/src/sections.ts', import.meta.url)),
    },
  },
  server: {
    proxy: {
      '/api': backend,
      '/external': backend,
    },
  },
  build: {
    outDir: 'dist',
    // Pictures (the sections' artwork) stay files of their own: hashed, cached for good, not inside the script.
    assetsInlineLimit: (file) => (file.endsWith('.svg') ? false : undefined),
  },
});
