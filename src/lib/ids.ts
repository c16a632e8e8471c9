/**
 * Identifiers: a short type prefix plus a time-ordered UUIDv7, so ids sort by creation
 * and a stray id in a log says what it names.
 */
export function newId(prefix: string): string {
  return `${prefix}_${Bun.randomUUIDv7().replaceAll('-', '')}`
}
