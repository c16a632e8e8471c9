/**
 * Bounds of the check results a collector sends in its batch (wire: `check_results`). The hub's
 * schema enforces them and the collector cuts to them; they stand alone so that the collector,
 * which loads no hub module, reads them from the same place as the hub.
 */

/** results of agent-run checks one batch carries at most */
export const MAX_CHECK_RESULTS = 500
