import { failed, networkError, timeoutText, withDeadline, type Probe } from './probe.types'

/** where ping is looked for; VIGIL_PING_PATH can name another */
const pingPath = () => process.env.VIGIL_PING_PATH ?? 'ping'

/** "time=0.045 ms" in iputils-ping's reply line. */
export const pingTime = (out: string): number | null => {
  const m = /time[=<]([\d.]+) ?ms/.exec(out)
  return m ? Number(m[1]) : null
}

/**
 * ICMP echo through Debian's `iputils-ping` (`ping -n -c 1 -W <s> <address>`), run as a child
 * process: it holds the capability (cap_net_raw) or uses the kernel's unprivileged ICMP sockets
 * where net.ipv4.ping_group_range allows, so Vigil needs neither. The address is the checked
 * one, never the name, so ping cannot resolve the name to another address. Without ping the
 * attempt fails with a message that says what to install.
 */
export const pingProbe: Probe = async (def, deps) => {
  const start = deps.elapsed()
  let ip: string
  try {
    // the attempt's timeout covers the name's lookup
    ;[ip] = (await withDeadline(def.timeout_ms, () => deps.addresses(def.settings.host!))) as [string]
  } catch (err) {
    return failed(networkError(err, def.timeout_ms))
  }
  const waitS = String(Math.max(1, Math.ceil(def.timeout_ms / 1000)))
  let proc: ReturnType<typeof Bun.spawn>
  try {
    proc = Bun.spawn([pingPath(), '-n', '-c', '1', '-W', waitS, ip], { stdout: 'pipe', stderr: 'pipe', env: { LC_ALL: 'C', PATH: process.env.PATH ?? '' } })
  } catch {
    return failed('ping is not installed: install iputils-ping')
  }
  const kill = setTimeout(() => proc.kill(), def.timeout_ms + 500)
  const [code, out, errText] = await Promise.all([proc.exited, (proc.stdout as ReadableStream).text(), (proc.stderr as ReadableStream).text()])
  clearTimeout(kill)
  const time = pingTime(out)
  // ping waits whole seconds (-W): a reply later than the check's timeout is a timeout
  if (code === 0 && time !== null && time > def.timeout_ms) return failed(timeoutText(def.timeout_ms))
  if (code === 0 && time !== null) {
    const line = out.split('\n').find((l) => l.includes('time=')) ?? ''
    return { ok: true, response_ms: time, status_code: null, error: null, cert_expires_at: null, detail: line.trim().slice(0, 300) }
  }
  if (deps.elapsed() - start >= def.timeout_ms) return failed(timeoutText(def.timeout_ms))
  const why = errText.trim().split('\n')[0] || (code === 1 ? 'no reply' : `ping exited with ${code}`)
  return failed(/Operation not permitted|permission/i.test(why) ? `ping not permitted: ${why}` : why === '' ? 'no reply' : why)
}
