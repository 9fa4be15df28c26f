// What-if versions of src/ code, swapped in at run time to size a recommended change before it is
// made (BENCH_EXPERIMENT, see bench/gateway-process.ts). Never on by default.
/**
 * What-if: the published repository's refs read once and kept until publication changes them,
 * instead of a `git for-each-ref` per facade request (facade.route.ts served() → GitStore.refs).
 */
export async function patchRefsCache(): Promise<void> {
  const { GitStore } = await import('../src/adapters/git/git-store.ts');
  const cache = new Map<string, Promise<Map<string, string>>>();
  const prototype = GitStore.prototype as unknown as {
    refs(repo: string): Promise<Map<string, string>>;
    converge(...args: unknown[]): Promise<unknown>;
  };
  const refs = prototype.refs;
  const converge = prototype.converge;
  prototype.refs = function cachedRefs(this: unknown, repo: string) {
    let known = cache.get(repo);
    if (!known) {
      known = refs.call(this, repo);
      cache.set(repo, known);
      known.catch(() => cache.delete(repo));
    }
    return known;
  };
  prototype.converge = async function convergeAndForget(this: unknown, ...args: unknown[]) {
    cache.clear();
    try {
      return await converge.apply(this, args);
    } finally {
      cache.clear();
    }
  };
}

