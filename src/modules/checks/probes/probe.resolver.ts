import { isIP } from 'node:net'

/** "1.1.1.1", "1.1.1.1:5353", "[::1]:53", "::1" as host and port, or null. */
export function parseResolver(text: string): { host: string; port: number } | null {
  const bracket = /^\[([^\]]+)\](?::(\d{1,5}))?$/.exec(text)
  if (bracket) return isIP(bracket[1]!) ? { host: bracket[1]!, port: Number(bracket[2] ?? 53) } : null
  if (isIP(text)) return { host: text, port: 53 }
  const m = /^([^:]+):(\d{1,5})$/.exec(text)
  if (m && isIP(m[1]!) === 4 && Number(m[2]) >= 1 && Number(m[2]) <= 65535) return { host: m[1]!, port: Number(m[2]) }
  return null
}
