import { CommandBlock } from '../devices/CommandBlock'
import { SecretBox } from '../ui'
import { heartbeatExamples } from './check-form'

/**
 * A heartbeat's URL with its secret token, shown once (after creation or a rotation): copy it,
 * and the lines a cron job or a backup script runs with it.
 */
export function HeartbeatSecret({ url }: { url: string }) {
  const ex = heartbeatExamples(url)
  return (
    <div class="ck-secret">
      <SecretBox
        value={url}
        label="Heartbeat URL"
        note="The URL holds a secret token and is shown only once: copy it now. If it is lost, rotate the token for a new URL."
      />
      <p>Call it when the job succeeds (GET or POST); add /fail to report a failure at once:</p>
      <CommandBlock command={ex.curl} label="Report success" />
      <p>In a crontab, after a nightly backup:</p>
      <CommandBlock command={ex.cron} label="Crontab line" />
    </div>
  )
}
