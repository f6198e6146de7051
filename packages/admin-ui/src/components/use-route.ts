import { useEffect, useState } from 'preact/hooks';

/**
 * The page's route: the hash's path segments (`#/tools/weather/getForecast`), `services` when
 * there is none. Hash routes, so a reload keeps the page and the server serves one file.
 */
export function useRoute(): string[] {
  const read = () => (location.hash.replace(/^#\/?/, '') || 'services').split('/').map(decodeURIComponent);
  const [route, setRoute] = useState(read);
  useEffect(() => {
    const onChange = () => setRoute(read());
    addEventListener('hashchange', onChange);
    return () => removeEventListener('hashchange', onChange);
  }, []);
  return route;
}

/** Go to the page at `path` (`services/weather`). */
export function go(path: string): void {
  location.hash = `#/${path}`;
}
