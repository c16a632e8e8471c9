import { Elysia } from 'elysia'
import { authGuards } from '../../http/auth'
import { jsonInput, queryInput } from '../../http/input'
import { routeErrors } from '../../http/openapi-errors'
import type { Authenticator } from '../../http/principal'
import * as M from './alerts.model'
import * as A from './alerts.instances.service'
import type { AlertsDeps } from './alerts.ports'
import * as S from './alerts.rules.service'
import * as W from './alerts.silences.service'

const tags = ['alerts']
const managers = { roles: ['owner' as const, 'admin' as const] }
const ruleIn = jsonInput(M.RuleIn)
const rulePatch = jsonInput(M.RulePatch)
const overrideIn = jsonInput(M.OverrideIn)
const ackIn = jsonInput(M.AckIn)
const silenceIn = jsonInput(M.SilenceIn)
const settingsPatch = jsonInput(M.SettingsPatch)
const dependencyIn = jsonInput(M.DependencyIn)
const alertsQuery = queryInput(M.AlertsQuery)
const historyQuery = queryInput(M.HistoryQuery)

/** Alert rules, alerts, silences and their settings: reads for every member, writes for owners and admins. */
export function alertsRoutes(deps: AlertsDeps, auth: Authenticator) {
  return (
    new Elysia({ prefix: '/v1/alerts' })
      .use(authGuards(auth))
      // ---- rules ----
      .get('/rules', async ({ user }) => ({ items: await S.listRules(deps, user.clientId) }), {
        user: true,
        response: { 200: M.RuleList },
        detail: { tags, summary: 'Alert rules of the account (the defaults are made on first use)' },
      })
      .post(
        '/rules',
        ({ user, body, set }) => {
          set.status = 201
          return S.createRule(deps, user.clientId, ruleIn.read(body))
        },
        {
          user: managers,
          response: { 201: M.Rule },
          detail: {
            ...ruleIn.doc,
            ...routeErrors('conflict'),
            tags,
            summary: 'Create a rule (threshold, offline or disk_forecast)',
            description: `An account may have ${S.MAX_RULES} rules (409 conflict beyond). channel_ids must name channels of this account (422 otherwise).`,
          },
        },
      )
      .get('/rules/:rule_id', ({ user, params }) => S.getRule(deps, user.clientId, params.rule_id), {
        user: true,
        params: M.RuleParams,
        response: { 200: M.Rule },
        detail: { tags, summary: 'One rule with its per-device overrides' },
      })
      .patch('/rules/:rule_id', ({ user, params, body }) => S.updateRule(deps, user.clientId, params.rule_id, rulePatch.read(body)), {
        user: managers,
        params: M.RuleParams,
        response: { 200: M.Rule },
        detail: { ...rulePatch.doc, tags, summary: 'Change a rule (enabled: false disables it and closes its alerts)' },
      })
      .delete(
        '/rules/:rule_id',
        async ({ user, params, set }) => {
          await S.deleteRule(deps, user.clientId, params.rule_id)
          set.status = 204
        },
        { user: managers, params: M.RuleParams, detail: { tags, summary: 'Delete a rule and its alerts' } },
      )
      .post('/rules/:rule_id/enable', ({ user, params }) => S.updateRule(deps, user.clientId, params.rule_id, { enabled: true }), {
        user: managers,
        params: M.RuleParams,
        response: { 200: M.Rule },
        detail: { tags, summary: 'Enable a rule' },
      })
      .post('/rules/:rule_id/disable', ({ user, params }) => S.updateRule(deps, user.clientId, params.rule_id, { enabled: false }), {
        user: managers,
        params: M.RuleParams,
        response: { 200: M.Rule },
        detail: { tags, summary: 'Disable a rule (its open alerts resolve)' },
      })
      .put(
        '/rules/:rule_id/overrides/:device_id',
        ({ user, params, body }) => S.putOverride(deps, user.clientId, params.rule_id, params.device_id, overrideIn.read(body)),
        {
          user: managers,
          params: M.OverrideParams,
          response: { 200: M.Rule },
          detail: { ...overrideIn.doc, tags, summary: "Set one device's override of a rule (null keeps the rule's value)" },
        },
      )
      .delete(
        '/rules/:rule_id/overrides/:device_id',
        async ({ user, params, set }) => {
          await S.deleteOverride(deps, user.clientId, params.rule_id, params.device_id)
          set.status = 204
        },
        { user: managers, params: M.OverrideParams, detail: { tags, summary: "Remove one device's override" } },
      )
      .get('/defaults', ({ user }) => S.listDefaults(deps, user.clientId), {
        user: true,
        response: { 200: M.DefaultList },
        detail: { tags, summary: 'The default rules and the rule each became in this account' },
      })
      .post('/defaults/restore', ({ user }) => S.restoreDefaults(deps, user.clientId), {
        user: managers,
        response: { 200: M.DefaultList },
        detail: { ...routeErrors('conflict'), tags, summary: 'Make again the default rules that were deleted' },
      })
      // ---- alerts ----
      .get('', ({ user, request }) => A.listAlerts(deps, user.clientId, alertsQuery.read(request)), {
        user: true,
        response: { 200: M.AlertPage },
        detail: { ...alertsQuery.doc, tags, summary: 'Alerts, newest first (filters: state, device, rule, time)' },
      })
      .get('/history', ({ user, request }) => A.history(deps, user.clientId, historyQuery.read(request)), {
        user: true,
        response: { 200: M.HistoryList },
        detail: { ...historyQuery.doc, tags, summary: 'Timeline events of alerts, newest first, per device and/or rule' },
      })
      .get('/settings', ({ user }) => S.getSettings(deps, user.clientId), {
        user: true,
        response: { 200: M.Settings },
        detail: { tags, summary: 'Severity routing and the grouping window' },
      })
      .patch('/settings', ({ user, body }) => S.updateSettings(deps, user.clientId, settingsPatch.read(body)), {
        user: managers,
        response: { 200: M.Settings },
        detail: { ...settingsPatch.doc, tags, summary: 'Change the severity routing or the grouping window' },
      })
      // ---- silences ----
      .get('/silences', ({ user }) => W.listSilences(deps, user.clientId), {
        user: true,
        response: { 200: M.SilenceList },
        detail: { tags, summary: 'Silences and maintenance windows' },
      })
      .post(
        '/silences',
        ({ user, body, set }) => {
          set.status = 201
          return W.createSilence(deps, user.clientId, user.userId, silenceIn.read(body))
        },
        {
          user: managers,
          response: { 201: M.Silence },
          detail: {
            ...silenceIn.doc,
            ...routeErrors('conflict'),
            tags,
            summary: 'Create a silence: one-off (starts_at, ends_at) or recurring (cron, duration_seconds, timezone)',
            description: `An account may have ${W.MAX_SILENCES} silences (409 conflict beyond).`,
          },
        },
      )
      .get('/silences/:silence_id', ({ user, params }) => W.getSilence(deps, user.clientId, params.silence_id), {
        user: true,
        params: M.SilenceParams,
        response: { 200: M.Silence },
        detail: { tags, summary: 'One silence' },
      })
      .patch('/silences/:silence_id', ({ user, params, body }) => W.updateSilence(deps, user.clientId, params.silence_id, silenceIn.read(body)), {
        user: managers,
        params: M.SilenceParams,
        response: { 200: M.Silence },
        detail: { ...silenceIn.doc, tags, summary: 'Change a silence' },
      })
      .delete(
        '/silences/:silence_id',
        async ({ user, params, set }) => {
          await W.deleteSilence(deps, user.clientId, params.silence_id)
          set.status = 204
        },
        { user: managers, params: M.SilenceParams, detail: { tags, summary: 'Lift a silence' } },
      )
      // ---- dependencies ----
      .get('/dependencies', ({ user }) => W.listDependencies(deps, user.clientId), {
        user: true,
        response: { 200: M.DependencyList },
        detail: { tags, summary: 'Devices reached through a gateway device' },
      })
      .put(
        '/dependencies/:device_id',
        ({ user, params, body }) => W.setDependency(deps, user.clientId, params.device_id, dependencyIn.read(body).parent_device_id),
        {
          user: managers,
          params: M.DeviceParams,
          response: { 200: M.Dependency },
          detail: { ...dependencyIn.doc, tags, summary: "Set the gateway a device is reached through (its offline alert waits behind the gateway's)" },
        },
      )
      .delete(
        '/dependencies/:device_id',
        async ({ user, params, set }) => {
          await W.deleteDependency(deps, user.clientId, params.device_id)
          set.status = 204
        },
        { user: managers, params: M.DeviceParams, detail: { tags, summary: "Remove a device's gateway" } },
      )
      // ---- one alert (after the fixed paths above) ----
      .get('/:alert_id', ({ user, params }) => A.getAlert(deps, user.clientId, params.alert_id), {
        user: true,
        params: M.AlertParams,
        response: { 200: M.AlertDetail },
        detail: { tags, summary: 'One alert with its timeline' },
      })
      .post('/:alert_id/acknowledge', ({ user, params, body }) => A.acknowledge(deps, user.clientId, params.alert_id, user.userId, ackIn.read(body).note), {
        user: true,
        params: M.AlertParams,
        response: { 200: M.AlertDetail },
        detail: { ...ackIn.doc, ...routeErrors('conflict'), tags, summary: 'Acknowledge an alert (stops repeats; a note says who handles it)' },
      })
  )
}
