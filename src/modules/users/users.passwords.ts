/** argon2id cost parameters (memory in KiB). */
export interface PasswordCost {
  memoryCost: number
  timeCost: number
}

/** Bun's own defaults (64 MiB, 2 passes): about 0.1 s per hash on a small server. */
export const DEFAULT_PASSWORD_COST: PasswordCost = { memoryCost: 65536, timeCost: 2 }

export const PASSWORD_MIN = 8
export const PASSWORD_MAX = 128

export interface Passwords {
  hash(password: string): Promise<string>
  verify(password: string, hash: string): Promise<boolean>
  /**
   * Does the work of a real check against a dummy hash of the same cost and returns false,
   * so a login for an unknown email takes as long as one with a wrong password.
   */
  verifyDummy(password: string): Promise<false>
}

export function passwords(cost: PasswordCost): Passwords {
  const hash = (password: string) => Bun.password.hash(password, { algorithm: 'argon2id', ...cost })
  // Made up front (off the main thread) so even the first unknown-email login takes full time.
  const dummy = hash(crypto.randomUUID())
  const verify = async (password: string, stored: string) => {
    try {
      return await Bun.password.verify(password, stored)
    } catch {
      return false // a malformed stored hash is a failed login, never a 500
    }
  }
  return {
    hash,
    verify,
    async verifyDummy(password) {
      await verify(password, await dummy)
      return false
    },
  }
}
