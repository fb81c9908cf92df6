import { Details } from './Details';

/** An order's params, stored as 'label:value' pairs joined by commas. */
export function parseParams(params: string | null): [string, string][] {
  if (!params) return [];
  return params.split(',').map((pair) => {
    const at = pair.indexOf(':');
    return at < 0 ? [pair, ''] : [pair.slice(0, at), pair.slice(at + 1)];
  });
}

/** The params a customer typed with an order, or 'Nothing to show'. */
export function Params({ params }: { params: string | null }) {
  const pairs = parseParams(params);
  return pairs.length ? <Details items={pairs} /> : <p>Nothing to show</p>;
}
