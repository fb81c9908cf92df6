import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Instances, serviceUrls, urlList } from '@raseed/kit';

/** Stand-ins for a service's instances: each answers /healthz as told. */
async function instance(healthy: { up: boolean; asked?: number }) {
  const server = http.createServer((_req, res) => {
    healthy.asked = (healthy.asked ?? 0) + 1;
    res.writeHead(healthy.up ? 200 : 503).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

describe('a service address list', () => {
  it('reads one URL or several separated by commas, with the local default when unset', () => {
    expect(serviceUrls('http://127.0.0.1:4002').parse(undefined)).toEqual(['http://127.0.0.1:4002']);
    expect(urlList.parse('http://a:1, http://b:2,')).toEqual(['http://a:1', 'http://b:2']);
    expect(urlList.safeParse('http://a:1,not a url').success).toBe(false);
    expect(urlList.safeParse(' , ').success).toBe(false);
  });
});

describe('Instances', () => {
  it('takes the instances in turn, and another than the ones tried when asked', () => {
    const at = new Instances('wallet', ['http://127.0.0.1:1', 'http://127.0.0.1:2', 'http://127.0.0.1:3']);
    expect([at.pick(), at.pick(), at.pick(), at.pick()]).toEqual([
      'http://127.0.0.1:1',
      'http://127.0.0.1:2',
      'http://127.0.0.1:3',
      'http://127.0.0.1:1',
    ]);
    for (let i = 0; i < 6; i++)
      expect(at.pick(['http://127.0.0.1:1', 'http://127.0.0.1:2'])).toBe('http://127.0.0.1:3');
  });

  it('leaves out an instance that refused a connection until its health check answers again', async () => {
    const health = { up: true };
    const [a, b] = [await instance({ up: true }), await instance(health)];
    const at = new Instances('orders', [a.url, b.url]).start();
    try {
      at.failed(b.url);
      expect(new Set(Array.from({ length: 4 }, () => at.pick()))).toEqual(new Set([a.url]));
      // The next probe (every 2 s) finds it healthy again.
      await new Promise((r) => setTimeout(r, 2_500));
      expect(new Set(Array.from({ length: 4 }, () => at.pick()))).toEqual(new Set([a.url, b.url]));
      health.up = false;
      await new Promise((r) => setTimeout(r, 2_500));
      expect(at.healthy).toEqual([a.url]);
    } finally {
      at.stop();
      a.server.close();
      b.server.close();
    }
  });

  it('tries every instance rather than none when none is known healthy', () => {
    const at = new Instances('auth', ['http://127.0.0.1:1', 'http://127.0.0.1:2']);
    at.failed('http://127.0.0.1:1');
    at.failed('http://127.0.0.1:2');
    expect(at.healthy).toEqual(['http://127.0.0.1:1', 'http://127.0.0.1:2']);
  });

  it('counts the instances that answer from its probes, a single address too, which routing keeps', async () => {
    const health = { up: false };
    const [a, b, one] = [await instance({ up: true }), await instance({ up: false }), await instance(health)];
    const several = new Instances('orders', [a.url, b.url]).start();
    const single = new Instances('catalog', [one.url]).start();
    try {
      expect(await several.health()).toEqual({ up: 1, total: 2 });
      expect(await single.health()).toEqual({ up: 0, total: 1 });
      expect(single.pick()).toBe(one.url);
      // Probed again when asked once its last probe is 2 s old.
      health.up = true;
      await new Promise((r) => setTimeout(r, 2_500));
      expect(await single.health()).toEqual({ up: 1, total: 1 });
    } finally {
      several.stop();
      single.stop();
      for (const { server } of [a, b, one]) server.close();
    }
  });

  it('probes a single address only when its health is asked, and at most every 2 s', async () => {
    const health = { up: true, asked: 0 };
    const one = await instance(health);
    const single = new Instances('catalog', [one.url]).start();
    try {
      await Promise.all([single.health(), single.health()]);
      expect(await single.health()).toEqual({ up: 1, total: 1 });
      expect(health.asked).toBe(1);
      // Nobody asks for 2.5 s: nothing is probed meanwhile.
      await new Promise((r) => setTimeout(r, 2_500));
      expect(health.asked).toBe(1);
      health.up = false;
      expect(await single.health()).toEqual({ up: 0, total: 1 });
      expect(health.asked).toBe(2);
    } finally {
      single.stop();
      one.server.close();
    }
  });

  it('probes nothing and keeps its one address when there is nothing to choose', () => {
    const at = new Instances('catalog', ['http://127.0.0.1:4003']);
    expect(at.several).toBe(false);
    at.failed('http://127.0.0.1:4003');
    expect(at.pick()).toBe('http://127.0.0.1:4003');
    // A host name (compose's service name) may stand for several instances.
    expect(new Instances('catalog', ['http://catalog:4003']).several).toBe(true);
  });
});
