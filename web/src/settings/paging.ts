/** The zero-based page a list shows, from ?page= (one-based in the URL; anything odd is the first). */
export function pageFromSearch(search: URLSearchParams, name = 'page'): number {
  const n = Number(search.get(name) ?? '1')
  return Number.isInteger(n) && n > 1 ? n - 1 : 0
}
