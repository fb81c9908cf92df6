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
 * the first paint (the header and spinner the page carries) waits for none of them. All the
 * files main.tsx starts the app with are asked for at once, none waiting for the part before.
 */
function paintAtOnce(): Plugin {
  let stylesheet = '';
  return {
    name: 'raseed:paint-at-once',
    apply: 'build',
    generateBundle: {
      // Taken before Vite links the stylesheet from the page or lists it among the pages' files.
      order: 'pre',
      handler(_options, bundle) {
        for (const chunk of Object.values(bundle)) {
          if (chunk.type !== 'chunk' || !chunk.isEntry || !chunk.viteMetadata) continue;
          for (const name of chunk.viteMetadata.importedCss) {
            const file = bundle[name];
            if (file?.type === 'asset') stylesheet += String(file.source);
            delete bundle[name];
          }
          chunk.viteMetadata.importedCss.clear();
        }
      },
    },
    transformIndexHtml: {
      order: 'post',
      handler(html, { bundle, chunk: entry }) {
        const started = new Set<string>();
        const start = (name: string) => {
          const chunk = bundle?.[name];
          if (started.has(name) || chunk?.type !== 'chunk') return;
          started.add(name);
          chunk.imports.forEach(start);
        };
        entry?.dynamicImports.forEach(start);
        const head = [...started]
          .filter((name) => !html.includes(`/${name}"`))
          .map((name) => `<link rel="modulepreload" crossorigin href="/${name}">`);
        head.push(`<style>${stylesheet}</style>`);
        return html
          .replace(/(\n\s*)<\/head>/, `${head.map((tag) => `$1  ${tag}`).join('')}$1</head>`)
          .replaceAll(
            '<script type="module" crossorigin ',
            '<script type="module" crossorigin fetchpriority="low" ',
          )
          .replaceAll(
            '<link rel="modulepreload" crossorigin ',
            '<link rel="modulepreload" crossorigin fetchpriority="low" ',
          );
      },
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
