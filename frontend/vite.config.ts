import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig, type Plugin } from 'vite';
import react from '@vitejs/plugin-react';
import { compression } from 'vite-plugin-compression2';

const backend = 'http://127.0.0.1:8080';
const reactRouter = (file: string) =>
  path.join(
    path.dirname(createRequire(import.meta.url).resolve('react-router/package.json')),
    'dist/production',
    file,
  );

/**
 * The index page paints at once, before the app's script has come: the store's stylesheet is
 * inside the page rather than linked from it, and the scripts are asked for at low priority, as
 * the first paint (the header and spinner the page carries) waits for none of them.
 */
function paintAtOnce(): Plugin {
  return {
    name: 'raseed:paint-at-once',
    apply: 'build',
    enforce: 'post',
    generateBundle(_options, bundle) {
      const page = bundle['index.html'];
      if (page?.type !== 'asset') return;
      let html = String(page.source)
        .replaceAll(
          '<script type="module" crossorigin ',
          '<script type="module" crossorigin fetchpriority="low" ',
        )
        .replaceAll(
          '<link rel="modulepreload" crossorigin ',
          '<link rel="modulepreload" crossorigin fetchpriority="low" ',
        );
      for (const [name, file] of Object.entries(bundle)) {
        const link = `<link rel="stylesheet" crossorigin href="/${name}">`;
        if (file.type !== 'asset' || !html.includes(link)) continue;
        html = html.replace(link, `<style>${String(file.source)}</style>`);
        delete bundle[name];
      }
      page.source = html;
    },
  };
}

export default defineConfig(({ command }) => ({
  plugins: [
    react(),
    paintAtOnce(),
    // Each text file also as .br and .gz, made once here; the gateway and nginx send them as they are.
    compression({
      algorithms: ['brotliCompress', 'gzip'],
      include: /\.(js|css|html|svg|json|txt)$/,
      threshold: 1024,
    }),
  ],
  resolve: {
    // The form rules the server applies too (plain zod, no Node APIs); the section names without zod.
    alias: [
      {
        find: '@raseed/forms',
        replacement: fileURLToPath(new URL('../services/kit/src/forms.ts', import.meta.url)),
      },
      {
        find: '@raseed/sections',
        replacement: fileURLToPath(new URL('../services/kit/src/sections.ts', import.meta.url)),
      },
      // react-router's package names only its development build, warnings included
      // (remix-run/react-router#12532): the store as built takes its production one.
      ...(command === 'build'
        ? [
            { find: /^react-router$/, replacement: reactRouter('index.mjs') },
            { find: /^react-router\/dom$/, replacement: reactRouter('dom-export.mjs') },
          ]
        : []),
    ],
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
}));
