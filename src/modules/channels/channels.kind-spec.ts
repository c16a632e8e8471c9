import type { ChannelNotification, KindId, Severity } from './channels.model'

/** One setting's value once checked against its field. */
export type SettingValue = string | number | boolean | string[]
/** A channel's settings, secret and not, by field name (only the fields that are set). */
export type Settings = Record<string, SettingValue>

export interface FieldSpec {
  name: string
  label: string
  type: 'string' | 'url' | 'email' | 'integer' | 'boolean' | 'enum' | 'string_list'
  required: boolean
  secret: boolean
  default: string | number | boolean | null
  description: string
  options?: string[]
  minimum?: number
  maximum?: number
  /** for strings: a pattern the value must match, with what to tell the user otherwise */
  pattern?: { re: RegExp; message: string }
}

/** An HTTP request exactly as the service's API takes it. */
export interface HttpRequest {
  transport: 'http'
  method: 'POST'
  url: string
  headers: Record<string, string>
  body: string
}

export type SmtpSecurity = 'starttls' | 'tls' | 'none'

/** An email and the server to hand it to. */
export interface MailRequest {
  transport: 'smtp'
  host: string
  port: number
  security: SmtpSecurity
  username: string | null
  password: string | null
  from: string
  to: string[]
  subject: string
  text: string
  html: string
}

export type OutboundRequest = HttpRequest | MailRequest

/** What rendering may need beyond the settings: the product's version, fixed API hosts (tests point them at fakes). */
export interface RenderEnv {
  version: string
  apiBase: Partial<Record<KindId, string>>
}

/** A Shoutrrr URL this kind cannot read; the message says what is wrong with it. */
export class ShoutrrrError extends Error {}

export interface KindSpec {
  id: KindId
  name: string
  description: string
  /** the Shoutrrr scheme */
  shoutrrr: string
  fields: FieldSpec[]
  /** checks across fields or of a value's shape beyond its type: the offending field and why, or null */
  check?: (s: Settings) => { field: string; message: string } | null
  /** the URLs the server will call with these settings, checked against the outbound policy when saved */
  targets: (s: Settings, env: RenderEnv) => string[]
  render: (s: Settings, n: ChannelNotification, env: RenderEnv) => OutboundRequest
  fromShoutrrr: (u: URL) => Settings
  toShoutrrr: (s: Settings) => string
}

export const str = (s: Settings, name: string): string | null => (typeof s[name] === 'string' ? (s[name] as string) : null)
export const num = (s: Settings, name: string): number | null => (typeof s[name] === 'number' ? (s[name] as number) : null)
export const bool = (s: Settings, name: string, fallback: boolean): boolean => (typeof s[name] === 'boolean' ? (s[name] as boolean) : fallback)
export const list = (s: Settings, name: string): string[] => (Array.isArray(s[name]) ? (s[name] as string[]) : [])

/** Query parameters by lower-cased name (Shoutrrr reads its keys case-insensitively). */
export function queryOf(u: URL): Map<string, string> {
  const out = new Map<string, string>()
  for (const [k, v] of u.searchParams) if (!out.has(k.toLowerCase())) out.set(k.toLowerCase(), v)
  return out
}

/** Shoutrrr's booleans: yes/no, true/false, 1/0, on/off. */
export function shoutrrrBool(raw: string | undefined, fallback: boolean): boolean {
  if (raw === undefined || raw === '') return fallback
  const v = raw.toLowerCase()
  if (['yes', 'true', '1', 'on', 'y'].includes(v)) return true
  if (['no', 'false', '0', 'off', 'n'].includes(v)) return false
  throw new ShoutrrrError(`"${raw}" is not a yes/no value`)
}

export const decode = (s: string) => {
  try {
    return decodeURIComponent(s)
  } catch {
    throw new ShoutrrrError('the URL has a malformed percent-encoding')
  }
}

/** A query string from the pairs whose value is set, in the order given. */
export function query(pairs: [string, string | number | null | undefined][]): string {
  const q = new URLSearchParams()
  for (const [k, v] of pairs) if (v !== null && v !== undefined && v !== '') q.set(k, String(v))
  const s = q.toString()
  return s ? `?${s}` : ''
}

export const SEVERITY_RANK: Record<Severity, number> = { info: 0, warning: 1, critical: 2 }

/** A practical address check (one @, no blanks, a dot in the domain), not RFC 5322's grammar. */
export const EMAIL = /^[^\s@<>(),;:"]+@[^\s@<>(),;:"]+\.[^\s@<>(),;:"]+$/
