export type ServiceName = 'auth' | 'wallet' | 'catalog' | 'orders' | 'payments';

/** Which service answers each path prefix of the spec's calls (spec §7, ARCHITECTURE "The contract"). */
export const routingTable: Record<ServiceName, string[]> = {
  auth: [
    '/api/signup',
    '/api/signin',
    '/api/logout',
    '/api/reset-password-request',
    '/api/reset-password',
    '/api/users',
    '/api/create-admin',
    '/api/discount',
    '/api/userdiscount',
    '/api/contact',
  ],
  wallet: ['/api/balance', '/api/debt', '/api/editdebt', '/api/profile'],
  payments: ['/api/payments', '/api/waiting-payments', '/api/userpayment', '/api/debtpayment'],
  catalog: [
    '/api/categories',
    '/api/custom-categories',
    '/api/products',
    '/api/custom-products',
    '/api/create/category',
    '/api/create/product',
    '/api/update/product',
    '/api/delete/product',
    '/api/edit-custom-percentage',
    '/api/edit-custom-products',
    '/api/edit-custom-categories',
    '/api/customproducts',
    '/api/customcategories',
    '/external/products',
    '/api/catalog',
  ],
  orders: ['/api/orders', '/external/neworder', '/external/Apiorders'],
};

// Each prefix with its '/' made once: every request is routed (and timed) by this table.
const prefixes = Object.entries(routingTable).flatMap(([service, paths]) =>
  paths.map((prefix) => ({ prefix, below: `${prefix}/`, service: service as ServiceName })),
);

/** The routing entry of a path: a prefix matches itself and anything below it, never a longer name. */
export function routeFor(path: string): { prefix: string; service: ServiceName } | undefined {
  return prefixes.find(({ prefix, below }) => path === prefix || path.startsWith(below));
}

/** The service owning a path (see routeFor). */
export function serviceFor(path: string): ServiceName | undefined {
  return routeFor(path)?.service;
}
