import { grouped } from '@raseed/kit';

/** A send whose calls are answered by hand, so a test decides when each turn comes back. */
function manualSend() {
  const turns: { inputs: number[]; answer: (results: string[]) => void; fail: (err: Error) => void }[] = [];
  const send = (inputs: number[]) =>
    new Promise<string[]>((answer, fail) => turns.push({ inputs, answer, fail }));
  return { turns, send };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('grouped', () => {
  it('sends a call at once, and the calls made meanwhile together next, each answered its own result', async () => {
    const { turns, send } = manualSend();
    const call = grouped(send);
    const first = call(1);
    await tick();
    expect(turns.map((t) => t.inputs)).toEqual([[1]]);
    const later = [call(2), call(3), call(4)];
    await tick();
    expect(turns).toHaveLength(1);
    turns[0]!.answer(['one']);
    expect(await first).toBe('one');
    await tick();
    expect(turns.map((t) => t.inputs)).toEqual([[1], [2, 3, 4]]);
    turns[1]!.answer(['two', 'three', 'four']);
    expect(await Promise.all(later)).toEqual(['two', 'three', 'four']);
    // Idle again: the next call goes at once.
    const again = call(5);
    await tick();
    expect(turns.map((t) => t.inputs)).toEqual([[1], [2, 3, 4], [5]]);
    turns[2]!.answer(['five']);
    expect(await again).toBe('five');
  });

  it('fails every call of a turn that throws, and goes on with the next turn', async () => {
    const { turns, send } = manualSend();
    const call = grouped(send);
    const first = call(1);
    const failed = [call(2), call(3)].map((p) => p.catch((err: Error) => err.message));
    await tick();
    turns[0]!.answer(['one']);
    await first;
    const after = call(4);
    await tick();
    turns[1]!.fail(new Error('store away'));
    expect(await Promise.all(failed)).toEqual(['store away', 'store away']);
    await tick();
    expect(turns.map((t) => t.inputs)).toEqual([[1], [2, 3], [4]]);
    turns[2]!.answer(['four']);
    expect(await after).toBe('four');
  });
});
