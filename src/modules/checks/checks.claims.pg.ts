import type { SQL } from 'bun'
import { type Raw, numOrNull } from '../../db/pg/rows'

/**
 * Each hub-run check runs once per interval across hubs (check_runs: src/db/pg/check-runs.table.ts).
 * Every hub plans every check; when one finds a check due it moves the check's `next_at` from a
 * time already past to the next run in one conditional write: of the hubs that find it due in
 * the same interval, the first one's write wins and the others learn when it is due next. A
 * paused, removed or no longer hub-run check is claimed by none.
 */
export function checkClaimsPg(sql: SQL, hub: string) {
  return {
    async claim(checkId: string, now: number, nextAt: number): Promise<{ won: boolean; nextAt: number | null }> {
      const won: Raw[] = await sql`INSERT INTO check_runs (check_id, next_at, hub)
        SELECT id, ${nextAt}, ${hub} FROM checks WHERE id = ${checkId} AND paused = 0 AND run_on_hub = 1 AND kind <> 'heartbeat'
        ON CONFLICT (check_id) DO UPDATE SET next_at = EXCLUDED.next_at, hub = EXCLUDED.hub WHERE check_runs.next_at <= ${now}
        RETURNING next_at`
      if (won.length) return { won: true, nextAt }
      const [held]: Raw[] = await sql`SELECT next_at FROM check_runs WHERE check_id = ${checkId}`
      return { won: false, nextAt: numOrNull(held?.next_at) }
    },
    /** the check's definition changed (its interval, paused, resumed): whichever hub finds it due next runs it */
    async reset(checkId: string) {
      await sql`DELETE FROM check_runs WHERE check_id = ${checkId}`
    },
  }
}
