import { describeError } from '../lib/errors'
import { Banner } from './Banner'
import { Button } from './Button'

/** A read that failed: what happened, and a way to try again. */
export function LoadError({ error, retry }: { error: unknown; retry: () => void }) {
  return (
    <Banner tone="error">
      {describeError(error)}{' '}
      <Button small onClick={retry}>
        Try again
      </Button>
    </Banner>
  )
}
