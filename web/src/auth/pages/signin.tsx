import { useEffect } from 'preact/hooks'
import { ApiError } from '../../lib/api'
import { Link, navigate, safeNext, useSearch } from '../../lib/router'
import { me, ready, signIn } from '../../lib/session'
import { Banner, Field, Form, PageHeader } from '../../ui'

export default function SignIn(_props: { params: Record<string, string> }) {
  const search = useSearch()
  const next = safeNext(search.get('next'), window.location.origin)
  const returning = search.has('next')
  const expired = search.get('reason') === 'expired'
  useEffect(() => {
    if (ready.value && me.value) navigate(next, { replace: true })
  }, [ready.value, me.value])

  const submit = async (d: FormData) => {
    const email = String(d.get('email') ?? '').trim()
    const password = String(d.get('password') ?? '')
    if (!email || !password) {
      throw new ApiError(422, 'validation_error', 'Enter your email and password.', null, [
        ...(email ? [] : [{ loc: ['body', 'email'], msg: 'Enter your email', type: 'missing' }]),
        ...(password ? [] : [{ loc: ['body', 'password'], msg: 'Enter your password', type: 'missing' }]),
      ])
    }
    await signIn(email, password)
    navigate(next, { replace: true })
  }

  return (
    <div class="auth-card">
      <PageHeader title="Sign in" />
      {expired && (
        <>
          <Banner tone="info">Your session ended. Sign in again to continue where you were.</Banner>
          <div class="stack-gap" />
        </>
      )}
      <Form onSubmit={submit} submitLabel="Sign in" label="Sign in">
        <Field name="email" type="email" label="Email" required autocomplete="username" />
        <Field name="password" type="password" label="Password" required autocomplete="current-password" />
      </Form>
      <p class="auth-alt">
        No account yet? <Link href={`/signup${returning ? `?next=${encodeURIComponent(next)}` : ''}`}>Create one</Link>
      </p>
    </div>
  )
}
