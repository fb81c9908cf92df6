/**
 * How the simulated supplier answers. Outcomes settle an order; faults spoil the answer to
 * one call (a timed-out or garbled order call still records the order, a 500 does not).
 */
export type Outcome =
  { kind: 'complete' } | { kind: 'after-polls'; polls: number } | { kind: 'reject'; reason: string };
export type Fault = { kind: 'timeout' } | { kind: 'error500' } | { kind: 'garbage'; html: boolean };
export type Scenario = Outcome | Fault;

/** An order waits through two checks and completes on the third: what a real supplier often does. */
export const DEFAULT_OUTCOME: Outcome = { kind: 'after-polls', polls: 2 };

export class SimRefusal extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** complete | after-polls:N | reject[:reason] | timeout | error500 | garbage[:json|html] */
export function parseScenario(text: string): Scenario {
  const [kind = '', ...rest] = text.trim().split(':');
  const arg = rest.join(':').trim();
  if ((kind === 'complete' || kind === 'timeout' || kind === 'error500') && !arg) return { kind };
  if (kind === 'garbage' && ['', 'json', 'html'].includes(arg)) return { kind, html: arg === 'html' };
  if (kind === 'after-polls' && /^\d{1,4}$/.test(arg)) return { kind, polls: Number(arg) };
  if (kind === 'reject') return { kind, reason: arg || 'Rejected by the supplier' };
  throw new SimRefusal(400, `Unknown scenario: ${text}`);
}

export const isOutcome = (s: Scenario | undefined): s is Outcome =>
  s?.kind === 'complete' || s?.kind === 'after-polls' || s?.kind === 'reject';

export function parseFault(text: string): Fault {
  const scenario = parseScenario(text);
  if (isOutcome(scenario))
    throw new SimRefusal(400, 'Only timeout, error500 or garbage apply to a whole call');
  return scenario;
}
