/**
 * The last payment status a terminal log printed for each order, so that a
 * lookup prints only when the status changed rather than on every poll.
 * Bounded: a server left running for days forgets the orders it printed
 * longest ago.
 */

/** Returns `changed(orderId, status)`: records the status, true when it differs from the one before. */
export function createStatusMemory(limit: number): (orderId: string, status: string) => boolean {
  const lastStatus = new Map<string, string>();
  return (orderId, status) => {
    const before = lastStatus.get(orderId);
    lastStatus.delete(orderId);
    lastStatus.set(orderId, status);
    // Maps keep insertion order: the first key is the one printed longest ago.
    if (lastStatus.size > limit) lastStatus.delete(lastStatus.keys().next().value as string);
    return before !== status;
  };
}
