import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

const backend = 'http://127.0.0.1:8080';

export default defineConfig({
  plugins: [react()],
  resolve: {
    // The form rules the server applies too (plain zod, no Node APIs).
    alias: { '@raseed/forms': fileURLToPath(new URL('../services/kit/src/forms.ts', import.meta.url)) },
  },
  server: {
    proxy: {
      '/api': backend,
      '/external': backend,
    },
  },
  build: { outDir: 'dist' },
});
