import { useEffect, useState } from 'preact/hooks';

/**
 * The page's route: the hash's path segments (`#/tools/weather/getForecast`), none when there is
 * none (the start page of the key's role). Hash routes, so a reload keeps the page and the server
 * serves one file.
 */
export function useRoute(): string[] {
  const read = () => {
    const path = location.hash.replace(/^#\/?/, '');
    return path === '' ? [] : path.split('/').map(safeDecode);
  };
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

/** A segment percent-decoded, or as it is when it is not valid percent-encoding (a typed address). */
function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
