import { DEFAULT_STATE_DIR } from './agent.config'

/** `vigil agent --help`; its own module so that main.ts can show it without loading the agent. */
export const AGENT_HELP = `Usage: vigil agent --hub URL [--key KEY] [options]

Runs the collector on this machine (Linux x64 and arm64): every interval it reads /proc and
/sys and sends one sample to the hub, with the containers of a Docker or Podman engine
(DOCKER_HOST, else the usual sockets) and disk health from smartctl when it may run it. Samples the hub does not take (down, overloaded) wait
in an on-disk queue in the state dir and are replayed oldest first when it is back.

  --hub URL         VIGIL_AGENT_HUB        the hub, e.g. http://hub:8080
  --key KEY         VIGIL_AGENT_KEY        an API key with metrics:write
  --key-file FILE   VIGIL_AGENT_KEY_FILE   read the key from FILE (default: STATE_DIR/key)
  --interval S      VIGIL_AGENT_INTERVAL   seconds between samples (10; 1 to 3600)
  --state-dir DIR   VIGIL_AGENT_STATE_DIR  device id and queue (${DEFAULT_STATE_DIR})
  --log-level L     VIGIL_AGENT_LOG_LEVEL  debug, info, warn, error (info)
  --no-update       VIGIL_AGENT_UPDATE=false  do not install the versions the hub publishes
  --exclude-containers GLOBS  VIGIL_AGENT_EXCLUDE_CONTAINERS  container names never reported (comma-separated, * and ?)
  --container-labels NAMES    VIGIL_AGENT_CONTAINER_LABELS    container labels sent with each container (none by default)
  --once            print one sample as JSON on stdout and exit (no hub or key needed)

Installs new versions the hub publishes (checked every ~4 h; see docs/agent.md, Updates) and
exits with code 75 to be restarted into them. Setting a machine up (what the hub's install.sh runs, as root):
  vigil agent enrol --hub URL --token TOKEN [--pin sha256//…] [--state-dir DIR]
                    spend an enrolment token: the device and its bound key, kept 0600 in the state dir
  vigil agent install --hub URL [--bin FILE] [--unit-dir DIR] [--user NAME] [--smart] [--no-start]
                    write the systemd unit vigil-agent.service and start it; --smart grants what
                    smartctl needs for disk health (group disk, CAP_SYS_RAWIO, CAP_SYS_ADMIN)
  vigil agent uninstall [--unit-dir DIR] [--no-start]
                    stop and remove the unit (the state dir stays)

Stops cleanly on SIGTERM or SIGINT. See docs/agent.md for what it collects.`
