/**
 * A signal that aborts when either input does. `AbortSignal.any` would do, but it needs Node 20.3 and the
 * Generator plugin may run on Photoshop's bundled Node 18 (reference A "Node version caveat").
 */
export function eitherSignal(a: AbortSignal, b: AbortSignal): AbortSignal {
  if (a.aborted) return a;
  if (b.aborted) return b;
  const controller = new AbortController();
  const abort = (): void => {
    a.removeEventListener("abort", abort);
    b.removeEventListener("abort", abort);
    controller.abort();
  };
  a.addEventListener("abort", abort, { once: true });
  b.addEventListener("abort", abort, { once: true });
  return controller.signal;
}
