import { readText } from '../agent.fs'

/** The kernel's TCP states (include/net/tcp_states.h) under psutil's names. */
const STATES: Record<string, string> = {
  '01': 'ESTABLISHED',
  '02': 'SYN_SENT',
  '03': 'SYN_RECV',
  '04': 'FIN_WAIT1',
  '05': 'FIN_WAIT2',
  '06': 'TIME_WAIT',
  '07': 'CLOSE',
  '08': 'CLOSE_WAIT',
  '09': 'LAST_ACK',
  '0A': 'LISTEN',
  '0B': 'CLOSING',
  '0C': 'NEW_SYN_RECV',
}

/**
 * TCP sockets (IPv4 and IPv6) counted by state, from /proc/net/tcp and tcp6, plus UDP sockets
 * as one count: [{type, state, count}], the largest first. Counts only; who is connected
 * stays on the machine.
 */
export function readConnections(root: string): { type: string; state: string; count: number }[] {
  const counts = new Map<string, number>()
  for (const file of ['tcp', 'tcp6']) {
    const text = readText(root, `proc/net/${file}`)
    if (text === null) continue
    for (const line of text.split('\n').slice(1)) {
      // sl local rem st ...: the state is the fourth column
      const st = line.trim().split(/\s+/, 4)[3]
      if (!st) continue
      const state = STATES[st.toUpperCase()] ?? 'UNKNOWN'
      counts.set(state, (counts.get(state) ?? 0) + 1)
    }
  }
  let udp = 0
  for (const file of ['udp', 'udp6']) {
    const text = readText(root, `proc/net/${file}`)
    if (text !== null)
      udp += text
        .split('\n')
        .slice(1)
        .filter((l) => l.trim()).length
  }
  const out = [...counts].map(([state, count]) => ({ type: 'tcp', state, count }))
  if (udp) out.push({ type: 'udp', state: 'NONE', count: udp })
  return out.sort((a, b) => b.count - a.count)
}
