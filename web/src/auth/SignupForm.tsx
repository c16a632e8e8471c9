import { useState } from 'preact/hooks'
import { ApiError, api } from '../lib/api'
import { setupTokenRequired, signIn } from '../lib/session'
import { Banner } from '../ui/Banner'
import { Field } from '../ui/Field'
import { Form } from '../ui/Form'

const text = (d: FormData, k: string) => {
  const v = d.get(k)
  return typeof v === 'string' && v.trim() ? v.trim() : null
}

/**
 * POST /v1/auth/register, then a session. The first account of an instance becomes its operator;
 * when the hub wants the setup token it logged, the form asks for it: from the start when /health
 * says so, else once the server answers setup_token_required.
 */
export function SignupForm({ invitationToken, onDone }: { invitationToken?: string; onDone: () => void }) {
  const [asked, setAsked] = useState(false)
  const setupNeeded = asked || (setupTokenRequired.value && !invitationToken)
  const submit = async (d: FormData) => {
    const email = text(d, 'email') ?? ''
    const password = (d.get('password') as string | null) ?? ''
    const body = {
      email,
      password,
      first_name: text(d, 'first_name'),
      last_name: text(d, 'last_name'),
      ...(invitationToken ? { invitation_token: invitationToken } : {}),
      ...(setupNeeded ? { setup_token: text(d, 'setup_token') ?? '' } : {}),
    }
    try {
      await api.post('/v1/auth/register', body, { anonymous: true })
    } catch (err) {
      if (err instanceof ApiError && err.code === 'setup_token_required' && !setupNeeded) {
        // not a mistake of the person's: the form asks for the token, explained, and waits
        setAsked(true)
        return
      }
      throw err
    }
    await signIn(email, password)
    onDone()
  }
  return (
    <Form onSubmit={submit} submitLabel="Create account" label="Create an account">
      {setupNeeded && (
        <>
          <Banner tone="info">
            You are creating the first account: it becomes this instance’s operator. Enter the setup token from the hub’s log, on the line that begins “no
            operator yet: the first registration needs the setup token vst_…”. Each start of the hub prints a new one.
          </Banner>
          <Field name="setup_token" label="Setup token" required autocomplete="off" spellcheck={false} hint="Starts with vst_." class="field-mono" autoFocus />
        </>
      )}
      <Field name="email" type="email" label="Email" required autocomplete="email" />
      <Field name="password" type="password" label="Password" required autocomplete="new-password" hint="At least 8 characters." />
      <div class="field-row">
        <Field name="first_name" label="First name" optional autocomplete="given-name" />
        <Field name="last_name" label="Last name" optional autocomplete="family-name" />
      </div>
    </Form>
  )
}
