import { expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { pinOfDer, pinOfPem, subjectPublicKeyInfo } from '../../src/agent/agent.pin'
import { publicKeyPin } from '../../src/lib/tls-pin'
import { tempDir } from '../helpers/binary'

const openssl = Bun.which('openssl')
const dir = tempDir('vigil-agent-pin-')

/** A self-signed certificate for a key of this kind, made with openssl. */
function certificate(name: string, newkey: string[]): string {
  const [key, cert] = [join(dir, `${name}.key`), join(dir, `${name}.pem`)]
  const made = Bun.spawnSync([openssl!, 'req', '-x509', ...newkey, '-nodes', '-keyout', key, '-out', cert, '-days', '2', '-subj', `/CN=${name}`], {
    stdout: 'ignore',
    stderr: 'pipe',
  })
  if (made.exitCode !== 0) throw new Error(made.stderr.toString())
  return readFileSync(cert, 'utf8')
}

const der = (pem: string) => Buffer.from(pem.replace(/-----[^-]+-----|\s+/g, ''), 'base64')

test("the collector's pin, read from the certificate's bytes, is the one node:crypto gives, for every common kind of key", () => {
  if (!openssl) return console.log('skipped: openssl is not installed')
  const kinds: Record<string, string[]> = {
    'ec-p256': ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256'],
    'ec-p384': ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-384'],
    rsa2048: ['-newkey', 'rsa:2048'],
    ed25519: ['-newkey', 'ed25519'],
  }
  for (const [name, newkey] of Object.entries(kinds)) {
    const pem = certificate(name, newkey)
    const expected = publicKeyPin(pem)
    expect({ name, pin: pinOfPem(pem) }).toEqual({ name, pin: expected })
    expect(pinOfDer(der(pem))).toBe(expected)
  }
}, 30_000) // making the keys takes a few seconds on a busy machine

test('bytes that are not a certificate give no pin, and never an exception', () => {
  expect(pinOfPem('not a certificate')).toBeNull()
  expect(pinOfDer(new Uint8Array())).toBeNull()
  expect(pinOfDer(new Uint8Array([0x30, 0x82, 0xff, 0xff, 0x30]))).toBeNull()
  if (!openssl) return
  const whole = der(certificate('cut', ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256']))
  expect(subjectPublicKeyInfo(whole)).not.toBeNull()
  // cut short anywhere before its key ends: no pin, never a wrong one
  for (const at of [1, 4, 40, 120, 200]) expect(pinOfDer(whole.subarray(0, at))).toBeNull()
})
