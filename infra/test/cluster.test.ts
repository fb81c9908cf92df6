import { instanceCounts } from '../cluster';

describe('npm start instance counts', () => {
  it('runs one instance of each service unless told', () => {
    expect(instanceCounts({})).toEqual({ auth: 1, wallet: 1, catalog: 1, orders: 1, payments: 1 });
  });

  it('reads RASEED_INSTANCES for every service and RASEED_INSTANCES_<SERVICE> for one', () => {
    expect(instanceCounts({ RASEED_INSTANCES: '2', RASEED_INSTANCES_ORDERS: '3' })).toEqual({
      auth: 2,
      wallet: 2,
      catalog: 2,
      orders: 3,
      payments: 2,
    });
  });

  it.each(['0', '10', '1.5', 'two', '-1'])('refuses RASEED_INSTANCES=%s with a clear message', (value) => {
    expect(() => instanceCounts({ RASEED_INSTANCES: value })).toThrow(
      `RASEED_INSTANCES must be a whole number from 1 to 9 (it is "${value}")`,
    );
  });
});
