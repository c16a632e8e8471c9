/**
 * Which hub runs a scheduled run. The scheduler asks before each run it would start; one hub on
 * SQLite runs every one of them (`localJobClaims`), hubs sharing a PostgreSQL database take each
 * run once between them (`postgresJobClaims` in claims.pg.ts).
 */
export interface JobClaims {
  /**
   * Whether this hub runs `job`'s run that croner scheduled at `slotMs`, asked at `now` by this
   * hub's clock. A boolean when the answer needs no round trip: the scheduler then starts the
   * run at once, as it always has on one hub.
   */
  claim(job: string, slotMs: number, now: number): boolean | Promise<boolean>
  /** how often a claimed run renews its lease while it goes on (ms); null when there is none to renew */
  readonly renewEveryMs: number | null
  /** the run claimed for `slotMs` still goes on at `now`: the other hubs keep off the job */
  renew(job: string, slotMs: number, now: number): Promise<void>
  /** the run claimed for `slotMs` ended at `now` */
  finish(job: string, slotMs: number, now: number): Promise<void>
}

/** One hub: every run is this hub's. */
export const localJobClaims: JobClaims = {
  claim: () => true,
  renewEveryMs: null,
  renew: async () => {},
  finish: async () => {},
}
