import { createSocket } from 'node:dgram'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/**
 * A tiny DNS server over UDP for tests: answers A and TXT questions from a table, NXDOMAIN for
 * names it does not know. Enough of RFC 1035 for one question per query.
 */
export async function dnsServer(records: Record<string, { A?: string[]; TXT?: string[] }>) {
  const socket = createSocket('udp4')
  socket.on('message', (msg, peer) => {
    // the question: labels from byte 12, then type and class
    let i = 12
    const labels: string[] = []
    while (msg[i]! > 0) {
      labels.push(msg.subarray(i + 1, i + 1 + msg[i]!).toString())
      i += msg[i]! + 1
    }
    const qEnd = i + 5
    const qtype = msg.readUInt16BE(i + 1)
    const name = labels.join('.').toLowerCase()
    const entry = records[name]
    const answers: Buffer[] = []
    if (entry && qtype === 1) {
      for (const ip of entry.A ?? []) answers.push(rr(1, Buffer.from(ip.split('.').map(Number))))
    }
    if (entry && qtype === 16) {
      for (const txt of entry.TXT ?? []) answers.push(rr(16, Buffer.concat([Buffer.from([txt.length]), Buffer.from(txt)])))
    }
    const header = Buffer.alloc(12)
    msg.copy(header, 0, 0, 2) // id
    header.writeUInt16BE(0x8180 | (entry ? 0 : 3), 2) // response, recursion available, NOERROR or NXDOMAIN
    header.writeUInt16BE(1, 4)
    header.writeUInt16BE(answers.length, 6)
    socket.send(Buffer.concat([header, msg.subarray(12, qEnd), ...answers]), peer.port, peer.address)
  })
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve))
  return { port: socket.address().port, stop: () => socket.close() }
}

/** one answer record pointing back at the question's name (offset 12), TTL 60 */
function rr(type: number, data: Buffer): Buffer {
  const head = Buffer.alloc(12)
  head.writeUInt16BE(0xc00c, 0)
  head.writeUInt16BE(type, 2)
  head.writeUInt16BE(1, 4)
  head.writeUInt32BE(60, 6)
  head.writeUInt16BE(data.length, 10)
  return Buffer.concat([head, data])
}

/**
 * A self-signed certificate for 127.0.0.1 made with openssl, ending `days` from now (negative:
 * already expired). `openssl ca -selfsign` takes an explicit start and end date, which
 * `req -x509` of OpenSSL 3.0 does not.
 */
export function selfSignedCert(days: number): { cert: string; key: string; notAfter: Date } {
  const dir = mkdtempSync(join(tmpdir(), 'vigil-cert-'))
  try {
    writeFileSync(join(dir, 'index.txt'), '')
    writeFileSync(join(dir, 'serial'), '1000\n')
    writeFileSync(
      join(dir, 'ca.cnf'),
      [
        '[ca]',
        'default_ca = local',
        '[local]',
        `dir = ${dir}`,
        `database = ${dir}/index.txt`,
        `new_certs_dir = ${dir}`,
        `serial = ${dir}/serial`,
        'default_md = sha256',
        'policy = any',
        'copy_extensions = copy',
        'unique_subject = no',
        '[any]',
        'commonName = supplied',
        '',
      ].join('\n'),
    )
    const run = (args: string[]) => {
      const r = Bun.spawnSync(['openssl', ...args], { stderr: 'pipe', stdout: 'pipe' })
      if (r.exitCode !== 0) throw new Error(`openssl ${args[0]}: ${r.stderr.toString()}`)
    }
    run([
      'req',
      '-new',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-subj',
      '/CN=127.0.0.1',
      '-addext',
      'subjectAltName=IP:127.0.0.1',
      '-keyout',
      join(dir, 'key.pem'),
      '-out',
      join(dir, 'req.csr'),
    ])
    const end = Date.now() + days * 86400_000
    run([
      'ca',
      '-batch',
      '-selfsign',
      '-config',
      join(dir, 'ca.cnf'),
      '-keyfile',
      join(dir, 'key.pem'),
      '-in',
      join(dir, 'req.csr'),
      '-out',
      join(dir, 'cert.pem'),
      '-startdate',
      stamp(Math.min(Date.now(), end) - 2 * 86400_000),
      '-enddate',
      stamp(end),
    ])
    const cert = readFileSync(join(dir, 'cert.pem'), 'utf8')
    return { cert, key: readFileSync(join(dir, 'key.pem'), 'utf8'), notAfter: new Date(Math.floor(end / 1000) * 1000) }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

/** YYYYMMDDHHMMSSZ, as openssl ca takes dates */
const stamp = (ms: number) =>
  new Date(ms)
    .toISOString()
    .replace(/[-:T]/g, '')
    .replace(/\.\d+Z$/, 'Z')
