import { eventually, infra } from '@raseed/kit/testing';
import type { Random } from './random';
import type { ServiceName, Stack } from './stack';

export interface FaultRecord {
  what: string;
  start: number;
  end: number;
}

const SERVICES: ServiceName[] = ['wallet', 'orders', 'payments'];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The supplier product whose placements the driver spoils for a while (see supplierOutage). */
export interface FlakyProduct {
  supplierId: number;
  scenario: string;
}

/**
 * Injects one fault at a time, at moments and of kinds drawn from the seed, until `until`;
 * each is bounded and undone before the next (a killed service is started again on its data
 * and port, a paused one resumed, Kafka brought back), so the store is whole when it returns.
 */
export async function driveFaults(
  stack: Stack,
  random: Random,
  flaky: FlakyProduct,
  until: number,
  faults: FaultRecord[],
  { kafka = true } = {},
): Promise<void> {
  const sim = stack.catalog.sim.control;
  let lastKafka = 0;
  const timed = async (what: string, run: () => Promise<void>) => {
    const record: FaultRecord = { what, start: Date.now(), end: 0 };
    faults.push(record);
    try {
      await run();
    } finally {
      record.end = Date.now();
    }
  };

  const kinds = {
    kill: async () => {
      const service = stack.services[random.pick(SERVICES)];
      const down = random.int(300, 3000);
      await timed(`SIGKILL ${service.name}, started again after ${down} ms`, async () => {
        await service.kill();
        await sleep(down);
        await service.start();
      });
    },
    pause: async () => {
      const service = stack.services[random.pick(SERVICES)];
      const ms = random.int(11_000, 14_000);
      await timed(`SIGSTOP ${service.name} for ${ms} ms`, async () => {
        service.pause();
        try {
          await sleep(ms);
        } finally {
          service.resume();
        }
      });
    },
    kafka: async () => {
      const down = random.int(2000, 8000);
      lastKafka = Date.now();
      await timed(`Kafka restarted (down ${down} ms)`, async () => {
        await infra('down', 'kafka');
        try {
          await sleep(down);
        } finally {
          await infra('up', 'kafka');
        }
      });
    },
    delay: async () => {
      const ms = random.int(500, 4000);
      const lasting = random.int(5000, 15_000);
      await timed(`wallet answers delayed ${ms} ms for ${lasting} ms`, async () => {
        stack.proxy.fault = { kind: 'delay', ms };
        await sleep(lasting);
        stack.proxy.fault = { kind: 'none' };
      });
    },
    drop: async () => {
      const probability = random.int(20, 50) / 100;
      const lasting = random.int(5000, 15_000);
      await timed(`wallet calls cut off (p=${probability}) for ${lasting} ms`, async () => {
        stack.proxy.fault = { kind: 'drop', probability };
        await sleep(lasting);
        stack.proxy.fault = { kind: 'none' };
      });
    },
    supplier: async () => {
      const fault = random.pick(['timeout', 'error500']);
      const lasting = random.int(5000, 20_000);
      await timed(`supplier ${fault} on checks and one product for ${lasting} ms`, async () => {
        sim.setCheckScenario(fault);
        sim.setScenario(flaky.supplierId, fault);
        await sleep(lasting);
        sim.setCheckScenario(null);
        sim.setScenario(flaky.supplierId, flaky.scenario);
      });
    },
  };

  while (Date.now() < until) {
    await sleep(random.int(3000, 12_000));
    if (Date.now() >= until) break;
    const kind = random.weighted([
      ['kill', 5],
      ['pause', 3],
      ['kafka', kafka && Date.now() - lastKafka > 150_000 && until - Date.now() > 40_000 ? 2 : 0],
      ['delay', 2],
      ['drop', 3],
      ['supplier', 2],
    ] as const);
    await kinds[kind]();
  }
}

/** After the faults: every service answers, the proxy passes everything, the supplier behaves. */
export async function heal(stack: Stack, flaky: FlakyProduct): Promise<void> {
  stack.proxy.fault = { kind: 'none' };
  stack.catalog.sim.control.setCheckScenario(null);
  stack.catalog.sim.control.setScenario(flaky.supplierId, flaky.scenario);
  for (const service of Object.values(stack.services)) {
    if (service.paused) service.resume();
    if (!service.child || service.child.exitCode !== null || service.child.signalCode !== null)
      await service.start();
    await eventually(async () => ((await service.ready()) ? true : undefined), {
      timeoutMs: 120_000,
      what: `${service.name} ready again`,
    });
  }
}
