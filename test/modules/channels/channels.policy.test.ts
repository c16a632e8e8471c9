import { expect, test } from 'bun:test'
import { channelPolicy, type ChannelsDeps } from '../../../src/modules/channels/channels.service'

const deps = (over: Partial<ChannelsDeps>) => ({ allowPrivate: false, isOperatorClient: (id: string) => id === 'op', ...over }) as ChannelsDeps

test.each([
  ['a tenant, nothing allowed', deps({}), 'c1', { allowPrivate: false, allowLocal: false }],
  ['the operator reaches its LAN, not this host', deps({}), 'op', { allowPrivate: true, allowLocal: false }],
  ['VIGIL_OUTBOUND_ALLOW_PRIVATE', deps({ allowPrivate: true }), 'c1', { allowPrivate: true, allowLocal: false }],
  ['VIGIL_OUTBOUND_ALLOW_LOCAL', deps({ allowLocal: true }), 'c1', { allowPrivate: false, allowLocal: true }],
])('where channels may send: %s', (_name, d, clientId, policy) => {
  expect(channelPolicy(d, clientId)).toEqual(policy)
})
