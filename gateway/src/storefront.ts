import fs from 'node:fs';
import path from 'node:path';
import { Router } from 'express';
import expressStaticGzip from 'express-static-gzip';

/** Vite names every file under assets/ after its content: a changed file gets a new name. */
const FOR_GOOD = 'public, max-age=31536000, immutable';

/**
 * The built storefront. Each file goes out as the brotli or gzip copy the build made beside it
 * when the browser takes one (brotli first); the hashed files under /assets/ are cached for
 * good, the rest (robots.txt, the logo, …) revalidated. Every other GET is answered by the
 * index page (client-side routes), always revalidated and compressed the same way. Which copies
 * exist is read when the gateway starts: after a rebuild, new files go out uncompressed until it
 * restarts.
 */
export function storefront(dir: string): Router {
  const index = path.join(dir, 'index.html');
  const hashed = path.resolve(dir, 'assets') + path.sep;
  const files = expressStaticGzip(dir, {
    enableBrotli: true,
    orderPreference: ['br', 'gzip'],
    index: false,
    serveStatic: {
      setHeaders: (res, file) =>
        res.setHeader('cache-control', file.startsWith(hashed) ? FOR_GOOD : 'no-cache'),
    },
  });
  const router = Router();
  router.use(files);
  router.get('/{*path}', (req, res, next) => {
    if (!fs.existsSync(index)) {
      res.status(503).type('text').send('The storefront is not built yet: run `npm run build`.');
      return;
    }
    req.url = '/index.html';
    files(req, res, next);
  });
  return router;
}
