import fc from 'fast-check';

/** The part of an OpenAPI 3 schema the fuzzer reads. */
export interface Schema {
  type?: string;
  enum?: unknown[];
  format?: string;
  properties?: Record<string, Schema>;
  items?: Schema;
  anyOf?: Schema[];
  oneOf?: Schema[];
  allOf?: Schema[];
  nullable?: boolean;
  $ref?: string;
}

interface Operation {
  parameters?: { in: string; name: string; schema?: Schema }[];
  requestBody?: { content?: Record<string, { schema?: Schema }> };
}

export interface Field {
  name: string;
  where: 'body' | 'query';
  schema: Schema;
}

/** A route as the public OpenAPI document declares it, with every field it takes. */
export interface DocumentedRoute {
  method: string;
  path: string;
  fields: Field[];
  hasBody: boolean;
  multipart: boolean;
}

type OpenApi = {
  paths: Record<string, Record<string, Operation>>;
  components?: { schemas?: Record<string, Schema> };
};

/** Every method and path of the document with the query and body fields it declares. */
export function documentedRoutes(doc: OpenApi): DocumentedRoute[] {
  const resolve = (s: Schema | undefined): Schema => {
    const name = s?.$ref?.split('/').pop();
    return (name ? doc.components?.schemas?.[name] : s) ?? {};
  };
  const routes: DocumentedRoute[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(item)) {
      const fields: Field[] = (op.parameters ?? [])
        .filter((p) => p.in === 'query')
        .map((p) => ({ name: p.name, where: 'query', schema: resolve(p.schema) }));
      const content = op.requestBody?.content ?? {};
      const seen = new Set<string>();
      for (const media of ['application/json', 'multipart/form-data']) {
        const properties = resolve(content[media]?.schema).properties ?? {};
        for (const [name, schema] of Object.entries(properties)) {
          // The form's file travels as a file, not as a field (see the upload tests).
          if (seen.has(name) || resolve(schema).format === 'binary') continue;
          seen.add(name);
          fields.push({ name, where: 'body', schema: resolve(schema) });
        }
      }
      routes.push({
        method,
        path,
        fields,
        hasBody: Object.keys(content).length > 0,
        multipart: 'multipart/form-data' in content,
      });
    }
  }
  return routes;
}

const variants = (s: Schema): Schema[] => [s, ...(s.anyOf ?? []), ...(s.oneOf ?? []), ...(s.allOf ?? [])];
const allows = (s: Schema, type: string) => variants(s).some((v) => v.type === type);
export const isNumeric = (s: Schema) => allows(s, 'number') || allows(s, 'integer');

/** A value the field's type accepts, so that one bad field is what a request is judged by. */
export function plausible(s: Schema): unknown {
  const v = variants(s).find((x) => x.type || x.enum) ?? s;
  if (v.enum?.length) return v.enum[0];
  switch (v.type) {
    case 'number':
    case 'integer':
      return 1;
    case 'boolean':
      return true;
    case 'array':
      return [];
    case 'object':
      return {};
    default:
      return v.format === 'email' ? 'fuzz-nobody@example.com' : 'fuzz';
  }
}

/** Marks a number JSON.stringify cannot write (1e309); replaced in the request text. */
export const OVERFLOW = '__1e309__';

/**
 * Values no declared field may take: operator objects, arrays, nested operators, a body far
 * past the 100 kB limit, and for numeric fields NaN, infinities and 1e309. A state-changing
 * request carrying one must be refused (4xx) and change nothing.
 */
export function refusedValue(s: Schema): fc.Arbitrary<unknown> {
  const shapes: fc.Arbitrary<unknown>[] = [
    fc.constant({ $gt: { $ne: 1 } }),
    fc.constant('x'.repeat(200_000)),
  ];
  // An object-valued field takes { $gt: '' } as a record of strings, an array field takes arrays.
  if (!allows(s, 'object')) {
    shapes.push(fc.constantFrom({ $gt: '' }, { $ne: null }, { $where: 'sleep(100)' }, { $regex: '.*' }));
  }
  if (!allows(s, 'array')) {
    shapes.push(fc.array(fc.constantFrom<unknown>('a', 1, { $gt: '' }), { minLength: 1, maxLength: 3 }));
  }
  if (isNumeric(s)) shapes.push(fc.constantFrom('NaN', 'Infinity', '-Infinity', '1e309', OVERFLOW));
  return fc.oneof(...shapes);
}

/**
 * Values a field may or may not take: unicode (astral, RTL, zero-width, NUL), empty and long
 * strings, numbers at the edges (-0, 2^53+1, many decimals, negative). Never a 5xx.
 */
export function edgeValue(): fc.Arbitrary<unknown> {
  return fc.oneof(
    fc.string({ unit: 'binary', maxLength: 40 }),
    fc.constantFrom('', ' ', '\u0000', '\u202Eevil', 'ze\u200Bro', '𝔘𝔫𝔦𝔠𝔬𝔡𝔢 😀', 'é'.repeat(3000)),
    fc.constantFrom(-0, 2 ** 53 + 1, -(2 ** 53 + 1), 1.000000000000001, 0.1 + 0.2, -1, 0, 1e-7),
    fc.constantFrom('-0', '9007199254740993', '1.00000000000000000001', '1e3', ' 5 ', '0x10'),
    fc.boolean(),
  );
}

/** A request body as text, with OVERFLOW written as the number JSON cannot hold. */
export const bodyText = (body: unknown) => JSON.stringify(body).replaceAll(`"${OVERFLOW}"`, '1e309');

/** The query string of a field map; objects and arrays as qs writes them (a[$gt]=, a[0]=). */
export function queryText(values: Record<string, unknown>): string {
  const parts: string[] = [];
  const put = (key: string, value: unknown) => {
    if (value !== null && typeof value === 'object') {
      for (const [k, v] of Object.entries(value)) put(`${key}[${k}]`, v);
    } else {
      const text = value === OVERFLOW ? '1e309' : String(value);
      parts.push(`${encodeURIComponent(key)}=${encodeURIComponent(text)}`);
    }
  };
  for (const [key, value] of Object.entries(values)) put(key, value);
  return parts.join('&');
}
