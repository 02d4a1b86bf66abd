/**
 * A step a fake port holds an answer until (`opened`), released by `open()` when another step
 * happens: how a test sees which read waits on which, never by time. It also opens after 3 s, so
 * that a collector that never takes the step still ends (and the test fails on the order seen).
 */
export function gate(): { open: () => void; opened: Promise<void> } {
  let open: () => void = () => {};
  const opened = new Promise<void>((resolve) => {
    open = resolve;
    setTimeout(resolve, 3_000);
  });
  return { open, opened };
}
