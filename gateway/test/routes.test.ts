import { canonicalPath } from '../src/paths';
import { routingTable, serviceFor } from '../src/routes';

describe('routing table', () => {
  it.each([
    ['/api/signin', 'auth'],
    ['/api/users/6b02c3f606d5d5378328a99d', 'auth'],
    ['/api/create-admin', 'auth'],
    ['/api/create/product', 'catalog'],
    ['/api/userpayment', 'payments'],
    ['/api/payments/abc/update-status', 'payments'],
    ['/api/orders/myorders', 'orders'],
    ['/external/Apiorders', 'orders'],
    ['/external/products', 'catalog'],
    ['/api/catalog/category/Steam', 'catalog'],
    ['/api/profile/42', 'wallet'],
  ])('sends %s to %s', (path, service) => {
    expect(serviceFor(path)).toBe(service);
  });

  it('matches whole path segments only', () => {
    expect(serviceFor('/api/usersx')).toBeUndefined();
    expect(serviceFor('/api/create')).toBeUndefined();
    expect(serviceFor('/my-orders')).toBeUndefined();
  });

  it('gives every prefix exactly one owner', () => {
    const all = Object.values(routingTable).flat();
    expect(new Set(all).size).toBe(all.length);
  });
});

describe('one reading of a request path', () => {
  it.each([
    ['/', '/'],
    ['/api/signin', '/api/signin'],
    ['/api/orders?page=1&q=a/../b', '/api/orders'],
    ['/api/catalog/category/Steam%20Cards', '/api/catalog/category/Steam%20Cards'],
    ['/api/catalog/category/%D8%B3%D8%AA%D9%8A%D9%85', '/api/catalog/category/%D8%B3%D8%AA%D9%8A%D9%85'],
    ['/my-orders#top', '/my-orders'],
  ])('reads %s as %s', (target, path) => {
    expect(canonicalPath(target)).toBe(path);
  });

  it.each([
    '/api/signin\\',
    '/api\\signin',
    '/api/signin%2F',
    '/api/signin%5C',
    '/api/%2e%2e/signin',
    '/api/./signin',
    '/api/x/..',
    '/api//signin',
    '/api/signin%00',
    '/api/caf\u00e9',
    '/api/a b',
    'http://evil.example/api/signin',
    '*',
    '',
  ])('refuses %j', (target) => {
    expect(canonicalPath(target)).toBeNull();
  });
});
