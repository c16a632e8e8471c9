import type { CheckKind, ProbeResult } from '../checks.model'
import { dnsProbe } from './probe.dns'
import { httpProbe } from './probe.http'
import { pingProbe } from './probe.ping'
import { tcpProbe } from './probe.tcp'
import { tlsProbe } from './probe.tls'
import { failed, type Probe, type ProbeDefinition, type ProbeDeps } from './probe.types'

/** A heartbeat is never probed: the job calls in (POST /hb/{token}). */
const PROBES: Record<Exclude<CheckKind, 'heartbeat'>, Probe> = { http: httpProbe, tcp: tcpProbe, ping: pingProbe, dns: dnsProbe, tls: tlsProbe }

/** One attempt of a definition; never throws (a failure is a result). */
export async function runProbe(def: ProbeDefinition, deps: ProbeDeps): Promise<ProbeResult> {
  if (def.kind === 'heartbeat') return failed('a heartbeat check is not probed: its job calls its URL')
  try {
    return await PROBES[def.kind](def, deps)
  } catch (err) {
    return failed(`probe failed: ${String((err as Error)?.message ?? err).slice(0, 200)}`)
  }
}
