/**
 * What `work` answers, or `late` if it has not answered within `ms` (the work goes on; its
 * answer is then dropped). The timer never holds the process open.
 */
export async function within<T, L>(ms: number, work: Promise<T>, late: L): Promise<T | L> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<L>((resolve) => {
    timer = setTimeout(() => resolve(late), ms).unref();
  });
  try {
    return await Promise.race([work, deadline]);
  } finally {
    clearTimeout(timer);
  }
}
