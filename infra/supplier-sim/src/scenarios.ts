/**
 * How the simulated supplier answers. Outcomes settle an order; faults spoil the answer to
 * one call (a timed-out or garbled order call still records the order, a 500 does not).
 * Three outcomes misbehave the way real suppliers do: `late` holds the order call open (the
 * caller times out) and shows the order to checks only some seconds later, completed; `ok-then-reject`
 * answers OK with a code, then reports the order rejected; `wait` never settles.
 */
export type Outcome =
  | { kind: 'complete' }
  | { kind: 'after-polls'; polls: number }
  | { kind: 'reject'; reason: string }
  | { kind: 'late'; seconds: number }
  | { kind: 'ok-then-reject'; checks: number }
  | { kind: 'wait' };
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

/** The reason an `ok-then-reject` order is rejected with. */
export const CANCELLED_AFTER_OK = 'Cancelled by the supplier';

/**
 * complete | after-polls:N | reject[:reason] | late[:seconds] (5 unless given) | ok-then-reject[:N]
 * (OK for the first N checks, 0 unless given) | wait | timeout | error500 | garbage[:json|html]
 */
export function parseScenario(text: string): Scenario {
  const [kind = '', ...rest] = text.trim().split(':');
  const arg = rest.join(':').trim();
  if ((kind === 'complete' || kind === 'timeout' || kind === 'error500' || kind === 'wait') && !arg)
    return { kind };
  if (kind === 'garbage' && ['', 'json', 'html'].includes(arg)) return { kind, html: arg === 'html' };
  if (kind === 'after-polls' && /^\d{1,4}$/.test(arg)) return { kind, polls: Number(arg) };
  if (kind === 'reject') return { kind, reason: arg || 'Rejected by the supplier' };
  if (kind === 'late' && /^(\d{1,4}(\.\d{1,3})?)?$/.test(arg))
    return { kind, seconds: arg ? Number(arg) : 5 };
  if (kind === 'ok-then-reject' && /^(\d{1,4})?$/.test(arg)) return { kind, checks: Number(arg || 0) };
  throw new SimRefusal(400, `Unknown scenario: ${text}`);
}

const OUTCOMES: ReadonlySet<string> = new Set<Outcome['kind']>([
  'complete',
  'after-polls',
  'reject',
  'late',
  'ok-then-reject',
  'wait',
]);

export const isOutcome = (s: Scenario | undefined): s is Outcome => s !== undefined && OUTCOMES.has(s.kind);

export function parseFault(text: string): Fault {
  const scenario = parseScenario(text);
  if (isOutcome(scenario))
    throw new SimRefusal(400, 'Only timeout, error500 or garbage apply to a whole call');
  return scenario;
}
