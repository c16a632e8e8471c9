// The check and status page shapes the portal reads, from the server's models (type-only: nothing of them is bundled).
import type { Static } from '@sinclair/typebox'
import type {
  CheckCreate,
  CheckDetail,
  CheckKind,
  CheckListItem,
  CheckPatch,
  CheckResponse,
  CheckSettings,
  CheckState,
  IncidentsPage as IncidentsPageSchema,
  ProbeResult,
  ResultsPage as ResultsPageSchema,
  SeriesResponse as SeriesSchema,
} from '../../../src/modules/checks/checks.model'
import type {
  Group,
  Item,
  NotePage as NotePageSchema,
  NoteCreate,
  NoteResponse,
  NoteState,
  PageCreate,
  PagePatch,
  PageResponse,
} from '../../../src/modules/status-pages/status-pages.model'

export type { CheckCreate, CheckDetail, CheckKind, CheckListItem, CheckPatch, CheckResponse, CheckSettings, CheckState, ProbeResult }
export type { Group, Item, NoteCreate, NoteResponse, NoteState, PageCreate, PagePatch, PageResponse }

/** GET /v1/checks/{id}/results */
export type ResultsPage = Static<typeof ResultsPageSchema>
export type ResultItem = ResultsPage['items'][number]
/** GET /v1/checks/{id}/incidents */
export type IncidentsPage = Static<typeof IncidentsPageSchema>
export type IncidentItem = IncidentsPage['items'][number]
/** GET /v1/checks/{id}/series */
export type CheckSeries = Static<typeof SeriesSchema>
/** GET /v1/status-pages/{id}/notes */
export type NotePage = Static<typeof NotePageSchema>
