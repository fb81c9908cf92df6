import { loggedUrl } from '@raseed/kit';

describe('request log lines', () => {
  it.each([
    ['/api/reset-password/Abc123-token_x', '/api/reset-password/[token]'],
    ['/api/reset-password/Abc123?x=1', '/api/reset-password/[token]?x=1'],
    ['/reset-password/Abc123', '/reset-password/[token]'],
    ['/api/reset-password-request', '/api/reset-password-request'],
    ['/api/orders/myorders', '/api/orders/myorders'],
  ])('log %s as %s', (url, logged) => {
    expect(loggedUrl(url)).toBe(logged);
  });
});
