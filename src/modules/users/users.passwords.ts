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
  const dummy = dummyHash(cost)
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
      await verify(password, dummy)
      return false
    },
  }
}

/**
 * A well-formed argon2id hash of the given cost that no password matches. Checking against it
 * costs exactly what a real check costs; its salt and digest are public and need not be random,
 * so nothing is hashed at start-up (a 64 MiB argon2 run that doubled the start-up RSS).
 */
export function dummyHash(cost: PasswordCost): string {
  const salt = 'dmlnaWwgZHVtbXkgc2FsdCBmb3IgdW5rbm93biBlbWFpbHM'
  const digest = 'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA'
  return `$argon2id$v=19$m=${cost.memoryCost},t=${cost.timeCost},p=1$${salt}$${digest}`
}
