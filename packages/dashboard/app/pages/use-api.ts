import { useEffect, useState } from 'preact/hooks';
import { api, ApiError } from '../api.js';

/** Loads `api/<route>` again whenever a dependency changes; the latest answer or error. */
// eslint-disable-next-line @typescript-eslint/no-unnecessary-type-parameters -- the caller names the answer's type
export function useApi<T>(route: string, deps: unknown[]): { data?: T; error?: string } {
  const [state, setState] = useState<{ data?: T; error?: string }>({});
  useEffect(() => {
    let current = true;
    api<T>(route).then(
      (data) => {
        if (current) setState({ data });
      },
      (e: unknown) => {
        if (!current) return;
        // A session that ended (logout elsewhere, expiry) sends the operator to the login form.
        if (e instanceof ApiError && e.status === 401) location.reload();
        setState({ error: e instanceof Error ? e.message : String(e) });
      },
    );
    return () => {
      current = false;
    };
  }, [route, ...deps]);
  return state;
}
