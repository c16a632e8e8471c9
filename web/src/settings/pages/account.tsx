import { useEffect, useState } from 'preact/hooks'
import { ApiError, api } from '../../lib/api'
import { currentMembership, isOperator, me, type Me } from '../../lib/session'
import { visibleSettingsTabs } from '../SettingsHeader'
import { Banner, Card, Field, Form, PageHeader, Tabs } from '../../ui'

/** /settings/account — who you are, and the password change (POST /v1/auth/password). */
export default function Account(_props: { params: Record<string, string> }) {
  const [done, setDone] = useState(false)
  const [formKey, setFormKey] = useState(0)
  useEffect(() => {
    // the profile as it is now (a name changed elsewhere); a session that ended meanwhile is noticed here
    api.get<Me>('/v1/auth/me').then(
      (fresh) => {
        me.value = fresh
      },
      () => {},
    )
  }, [])
  const user = me.value
  const membership = currentMembership.value

  const submit = async (d: FormData) => {
    setDone(false)
    const current = String(d.get('current_password') ?? '')
    const next = String(d.get('new_password') ?? '')
    const confirm = String(d.get('confirm_password') ?? '')
    if (next !== confirm) {
      throw new ApiError(422, 'validation_error', 'The two new passwords differ.', null, [
        { loc: ['body', 'confirm_password'], msg: 'Type the same new password twice', type: 'mismatch' },
      ])
    }
    try {
      await api.post('/v1/auth/password', { current_password: current, new_password: next })
    } catch (err) {
      if (err instanceof ApiError && err.code === 'invalid_credentials') {
        throw new ApiError(err.status, 'wrong_password', 'The current password is not right.', 'current_password')
      }
      throw err
    }
    setDone(true)
    setFormKey((k) => k + 1) // empties the fields
  }

  return (
    <>
      <PageHeader title="Your account" />
      <Tabs items={visibleSettingsTabs()} label="Settings sections" />
      <Card title="Profile">
        <dl class="facts">
          <dt>Email</dt>
          <dd>{user?.email}</dd>
          <dt>Name</dt>
          <dd>{[user?.first_name, user?.last_name].filter(Boolean).join(' ') || '—'}</dd>
          <dt>Account</dt>
          <dd>{membership ? `${membership.client_name ?? 'Your account'} (${membership.role})` : '—'}</dd>
          {isOperator.value && (
            <>
              <dt>Instance</dt>
              <dd>You are this instance’s operator.</dd>
            </>
          )}
        </dl>
      </Card>
      <Card title="Change password">
        {done && (
          <>
            <Banner tone="success">Password changed. Your other sessions were signed out; this one stays signed in.</Banner>
            <div class="stack-gap" />
          </>
        )}
        <div class="narrow">
          <Form key={formKey} onSubmit={submit} submitLabel="Change password" label="Change password">
            <Field name="current_password" type="password" label="Current password" required autocomplete="current-password" />
            <Field name="new_password" type="password" label="New password" required autocomplete="new-password" hint="At least 8 characters." />
            <Field name="confirm_password" type="password" label="New password again" required autocomplete="new-password" />
          </Form>
        </div>
      </Card>
    </>
  )
}
