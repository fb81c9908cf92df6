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
