import { enrolCommand } from './agent.enrol'
import { agentInstall, agentUninstall, parseInstallArgs, systemAgentIo, type AgentInstallIo } from './agent.install'

/** `vigil agent enrol | install | uninstall`: setting a machine up, as the install script does. */
export async function setupCommand(
  sub: 'enrol' | 'install' | 'uninstall',
  args: string[],
  env: Record<string, string | undefined>,
  io: AgentInstallIo = systemAgentIo,
): Promise<number> {
  if (sub === 'enrol') return enrolCommand(args, env)
  const o = parseInstallArgs(args)
  if (typeof o === 'string') {
    console.error(`vigil: ${o}; run "vigil agent --help"`)
    return 2
  }
  if (sub === 'uninstall') return agentUninstall(o, io)
  if (!/^https?:\/\/[^\s]+$/.test(o.hub)) {
    console.error('vigil: agent install needs --hub URL (http or https), the hub the unit reports to')
    return 2
  }
  return agentInstall(o, io)
}
