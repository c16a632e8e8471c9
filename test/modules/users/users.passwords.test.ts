import { expect, test } from 'bun:test'
import { dummyHash, passwords } from '../../../src/modules/users/users.passwords'
import { TEST_PASSWORD_COST } from '../../helpers/app'

// The dummy must cost what a real check costs: same algorithm and parameters as a real hash, and
// parsed by Bun (a hash it rejected would be "checked" in no time, revealing unknown emails).
test('the dummy hash has the parameters of a real one and is checked, never rejected', async () => {
  const real = await passwords(TEST_PASSWORD_COST).hash('correct horse battery staple')
  const dummy = dummyHash(TEST_PASSWORD_COST)
  expect(dummy.split('$').slice(0, 4)).toEqual(real.split('$').slice(0, 4))
  await expect(Bun.password.verify('correct horse battery staple', dummy)).resolves.toBe(false)
  await expect(Bun.password.verify('', dummy)).resolves.toBe(false)
  await expect(passwords(TEST_PASSWORD_COST).verifyDummy('anything')).resolves.toBe(false)
})

test('the production cost yields the 64 MiB, 2-pass dummy', () => {
  expect(dummyHash({ memoryCost: 65536, timeCost: 2 })).toStartWith('$argon2id$v=19$m=65536,t=2,p=1$')
})
