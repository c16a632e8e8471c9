import { describe, expect, test } from 'bun:test'
import { deriveSecretKey, openSecret, resolveSecretKey, sealSecret } from '../../src/lib/secret-box'
import { createLogger } from '../../src/lib/logger'

const quiet = () => {
  const lines: string[] = []
  return { lines, logger: createLogger({ level: 'debug', format: 'json', write: (l) => void lines.push(l) }) }
}

describe('secret key', () => {
  test('a key source is called once, on first use, not at start-up', () => {
    let calls = 0
    const { logger } = quiet()
    const key = resolveSecretKey(
      () => {
        calls++
        return deriveSecretKey('s'.repeat(48))
      },
      null,
      logger,
    )
    expect(calls).toBe(0)
    expect(key()).toEqual(key())
    expect(calls).toBe(1)
  })

  test('a key of the wrong size is refused when it is made', () => {
    const key = resolveSecretKey(() => new Uint8Array(16), null, quiet().logger)
    expect(() => key()).toThrow('32 bytes')
  })

  test('VIGIL_SECRET_KEY is used as given; with nothing configured the key is ephemeral and says so', () => {
    const configured = Buffer.alloc(32, 7).toString('base64')
    expect(resolveSecretKey(undefined, configured, quiet().logger)()).toEqual(new Uint8Array(Buffer.alloc(32, 7)))
    const { lines, logger } = quiet()
    const ephemeral = resolveSecretKey(undefined, null, logger)
    expect(ephemeral()).toHaveLength(32)
    expect(lines.join('\n')).toContain('will not survive a restart')
  })

  test('the data-dir key derivation is pinned, so keys sealed by earlier versions still open', () => {
    // HKDF-SHA256(file contents, no salt, info "vigil secret-box v1"), 32 bytes
    const key = deriveSecretKey('k'.repeat(64))
    expect(Buffer.from(key).toString('hex')).toBe('e40c9db44ddf65b2ffa5e99d4dd7c6e8aaedb117cc9cbbdf74a22d3e489ce124')
    expect(openSecret(deriveSecretKey('k'.repeat(64)), sealSecret(key, 'sk-live-1234', 'cli_a'), 'cli_a')).toBe('sk-live-1234')
  })
})
