import { useEffect } from 'preact/hooks'
import { SignupForm } from '../SignupForm'
import { Link, navigate, safeNext, useSearch } from '../../lib/router'
import { me, ready } from '../../lib/session'
import { PageHeader } from '../../ui'

export default function SignUp(_props: { params: Record<string, string> }) {
  const next = safeNext(useSearch().get('next'), window.location.origin)
  useEffect(() => {
    if (ready.value && me.value) navigate(next, { replace: true })
  }, [ready.value, me.value])
  return (
    <div class="auth-card">
      <PageHeader title="Create an account" />
      <SignupForm onDone={() => navigate(next, { replace: true })} />
      <p class="auth-alt">
        Have an account? <Link href="/signin">Sign in</Link>
      </p>
    </div>
  )
}
