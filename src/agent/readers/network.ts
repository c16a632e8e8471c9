import { readLine, readNumber, readText, round } from '../agent.fs'

/** One interface's counters since boot, as psutil's net_io_counters(pernic=True). */
export interface NicCounters {
  bytes_sent: number
  bytes_recv: number
  packets_sent: number
  packets_recv: number
  errin: number
  errout: number
  dropin: number
  dropout: number
}

/** /proc/net/dev: after the name, 8 receive columns then 8 transmit columns. */
export function readNicCounters(root: string): Map<string, NicCounters> {
  const out = new Map<string, NicCounters>()
  for (const line of (readText(root, 'proc/net/dev') ?? '').split('\n').slice(2)) {
    const colon = line.indexOf(':')
    if (colon === -1) continue
    const name = line.slice(0, colon).trim()
    const f = line
      .slice(colon + 1)
      .trim()
      .split(/\s+/)
      .map(Number)
    if (f.length < 16) continue
    out.set(name, {
      bytes_recv: f[0]!,
      packets_recv: f[1]!,
      errin: f[2]!,
      dropin: f[3]!,
      bytes_sent: f[8]!,
      packets_sent: f[9]!,
      errout: f[10]!,
      dropout: f[11]!,
    })
  }
  return out
}

const mbps = (prevBytes: number, bytes: number, seconds: number) => round((Math.max(0, bytes - prevBytes) * 8) / seconds / 1e6, 3)

/**
 * The sample's network part: totals over every interface but loopback (traffic a machine sends
 * itself is not network traffic), throughput in Mbps (10^6 bits/s) over the interval, and per
 * interface the same with its state, MTU, speed and MAC from /sys/class/net. Throughput is
 * absent on the first reading; a counter that went down (interface reset) counts as zero.
 */
export function networkFields(root: string, prev: Map<string, NicCounters> | null, cur: Map<string, NicCounters>, seconds: number) {
  const total: NicCounters = { bytes_sent: 0, bytes_recv: 0, packets_sent: 0, packets_recv: 0, errin: 0, errout: 0, dropin: 0, dropout: 0 }
  let up = 0
  let down = 0
  const interfaces: Record<string, unknown>[] = []
  for (const [name, c] of cur) {
    const p = prev?.get(name)
    const rates = p && seconds > 0 ? { upload_mbps: mbps(p.bytes_sent, c.bytes_sent, seconds), download_mbps: mbps(p.bytes_recv, c.bytes_recv, seconds) } : {}
    const speed = readNumber(root, `sys/class/net/${name}/speed`)
    interfaces.push({
      name,
      ...c,
      ...rates,
      is_up: readLine(root, `sys/class/net/${name}/operstate`) === 'up' || name === 'lo',
      speed_mbps: speed !== null && speed > 0 ? speed : null,
      mtu: readNumber(root, `sys/class/net/${name}/mtu`),
      mac: readLine(root, `sys/class/net/${name}/address`),
    })
    if (name === 'lo') continue
    for (const k of Object.keys(total) as (keyof NicCounters)[]) total[k] += c[k]
    if (rates.upload_mbps !== undefined) {
      up += rates.upload_mbps
      down += rates.download_mbps
    }
  }
  return {
    upload_mbps: prev && seconds > 0 ? round(up, 3) : null,
    download_mbps: prev && seconds > 0 ? round(down, 3) : null,
    bytes_sent_total: total.bytes_sent,
    bytes_recv_total: total.bytes_recv,
    packets_sent: total.packets_sent,
    packets_recv: total.packets_recv,
    errin: total.errin,
    errout: total.errout,
    dropin: total.dropin,
    dropout: total.dropout,
    interfaces,
  }
}
