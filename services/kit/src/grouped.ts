/**
 * Group commit: calls made while one is on its way wait for it, then all go together in the
 * next, so a busy writer makes one round trip per turn rather than one per call, and an idle
 * one sends each call at once. `send` gets the waiting calls' inputs in the order they came and
 * answers each one's result in that order; when it throws, every call of that turn fails with it.
 */
export function grouped<I, O>(send: (inputs: I[]) => Promise<O[]>): (input: I) => Promise<O> {
  let waiting: { input: I; resolve: (result: O) => void; reject: (err: unknown) => void }[] = [];
  let sending = false;
  const drain = async () => {
    sending = true;
    while (waiting.length) {
      const turn = waiting;
      waiting = [];
      try {
        const results = await send(turn.map((call) => call.input));
        turn.forEach((call, i) => call.resolve(results[i]!));
      } catch (err) {
        for (const call of turn) call.reject(err);
      }
    }
    sending = false;
  };
  return (input) =>
    new Promise((resolve, reject) => {
      waiting.push({ input, resolve, reject });
      if (!sending) void drain();
    });
}
