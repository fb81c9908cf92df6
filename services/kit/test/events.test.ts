import { createEvent, EVENT_TYPES, parseEvent, type EventData } from '@raseed/kit';

const registered: EventData<'user.registered'> = {
  userId: 'u-1',
  username: 'sara',
  email: 'sara@example.com',
  phone: '+961 70 123456',
  role: 'user',
  createdAt: '2024-05-01T10:00:00.000Z',
};

describe('createEvent', () => {
  it('builds an envelope with a fresh id, the time, the source and the key', () => {
    const a = createEvent('kit-test', 'user.registered', 'u-1', registered);
    const b = createEvent('kit-test', 'user.registered', 'u-1', registered);
    expect(a).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      type: 'user.registered',
      occurredAt: expect.any(String),
      source: 'kit-test',
      key: 'u-1',
      data: registered,
    });
    expect(new Date(a.occurredAt).toISOString()).toBe(a.occurredAt);
    expect(a.id).not.toBe(b.id);
  });

  it('refuses data that does not match the schema of its type', () => {
    const noUser = { userId: '' };
    const badRole = { ...registered, role: 'owner' } as unknown as EventData<'user.registered'>;
    const zero = { userId: 'u-1', percentage: 0, setAt: '2024-05-01' };
    expect(() => createEvent('kit-test', 'user.deleted', 'u-1', noUser)).toThrow();
    expect(() => createEvent('kit-test', 'user.registered', 'u-1', badRole)).toThrow();
    expect(() => createEvent('kit-test', 'user.discount-changed', 'u-1', zero)).toThrow();
  });

  it('drops fields the schema does not know', () => {
    const extra = { userId: 'u-1', password: 'secret' } as EventData<'user.deleted'>;
    expect(createEvent('kit-test', 'user.deleted', 'u-1', extra).data).toEqual({ userId: 'u-1' });
  });
});

describe('parseEvent', () => {
  it('round-trips an event through JSON', () => {
    const event = createEvent('kit-test', 'user.discount-changed', 'u-1', {
      userId: 'u-1',
      percentage: 12.5,
      setAt: '2024-05-01T10:00:00.000Z',
    });
    expect(parseEvent(JSON.stringify(event))).toEqual(event);
  });

  it('knows a topic for every event type', () => {
    expect(EVENT_TYPES).toEqual(
      expect.arrayContaining(['user.registered', 'user.deleted', 'user.discount-changed']),
    );
  });

  it.each([
    ['not JSON', 'not json {'],
    ['JSON that is not an envelope', '"user.deleted"'],
    ['null', 'null'],
  ])('returns null for %s', (_what, raw) => {
    expect(parseEvent(raw)).toBeNull();
  });

  it('returns null for an unknown type, bad data or a missing id', () => {
    const event = createEvent('kit-test', 'user.deleted', 'u-1', { userId: 'u-1' });
    expect(parseEvent(JSON.stringify(event))).not.toBeNull();
    expect(parseEvent(JSON.stringify({ ...event, type: 'user.exploded' }))).toBeNull();
    expect(parseEvent(JSON.stringify({ ...event, data: { userId: 7 } }))).toBeNull();
    expect(parseEvent(JSON.stringify({ ...event, id: '' }))).toBeNull();
    expect(parseEvent(JSON.stringify({ ...event, id: undefined }))).toBeNull();
  });

  // A message typed like an Object.prototype member must not crash a consumer (a poison message).
  it.each(['toString', 'constructor', 'hasOwnProperty'])('returns null for the type %p', (type) => {
    const event = createEvent('kit-test', 'user.deleted', 'u-1', { userId: 'u-1' });
    expect(parseEvent(JSON.stringify({ ...event, type }))).toBeNull();
  });
});
