/**
 * VIGIL_REDIS_URL: redis:// or rediss:// (TLS), with a password and a database number if the
 * server wants them. The message never repeats the value, which may hold the password.
 */
export function redisUrlSetting(raw: string | undefined, fail: (message: string) => never): string | null {
  const v = raw?.trim()
  if (!v) return null
  const bad = (why: string) => fail(`VIGIL_REDIS_URL must be a redis:// or rediss:// URL such as redis://:password@127.0.0.1:6379/0 (${why})`)
  if (v.length > 2048) bad('longer than 2048 characters')
  let u: URL
  try {
    u = new URL(v)
  } catch {
    return bad('not a URL')
  }
  if (u.protocol !== 'redis:' && u.protocol !== 'rediss:') bad(`the scheme is ${u.protocol.slice(0, 20)}`)
  if (!u.hostname) bad('no host')
  if (u.pathname.length > 1 && !/^\/\d{1,2}$/.test(u.pathname)) bad('the path may only be a database number')
  return v
}
