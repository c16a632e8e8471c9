#!/bin/sh
# Installs Vigil's collector from the hub that served this script, and nothing else:
#   curl -fsSL http://hub:8080/install.sh | sudo sh -s -- --token vet_…
# Downloads the hub's executable for this machine (gzip-compressed when gzip is here), checks its
# SHA-256, installs it, spends the enrolment token (vigil agent enrol: a device and its own key)
# and starts the systemd unit. When the hub cannot serve it, prints what the hub says and stops.
set -eu

HUB='__VIGIL_HUB__'
TOKEN=''
PIN=''
BIN=/usr/local/bin/vigil
STATE_DIR=''
SYSTEMD=1

usage() {
	cat <<USAGE
Usage: install.sh --token TOKEN [--pin sha256//…] [--hub URL] [--bin FILE] [--state-dir DIR] [--no-systemd]

  --token TOKEN    the enrolment token (POST /v1/enrolments on the hub gives one)
  --pin PIN        the hub's public-key pin, for an https hub with a self-signed certificate
  --hub URL        the hub (default: $HUB)
  --bin FILE       where the executable goes (default: /usr/local/bin/vigil)
  --state-dir DIR  where the key and queue are kept (default: /var/lib/vigil-agent)
  --no-systemd     install and enrol only; do not write or start the systemd unit
USAGE
}

die() {
	echo "vigil install: $*" >&2
	exit 1
}

need() {
	[ $# -ge 2 ] || die "$1 needs a value"
}

while [ $# -gt 0 ]; do
	case "$1" in
	--token) need "$@"; TOKEN=$2; shift 2 ;;
	--token=*) TOKEN=${1#*=}; shift ;;
	--pin) need "$@"; PIN=$2; shift 2 ;;
	--pin=*) PIN=${1#*=}; shift ;;
	--hub) need "$@"; HUB=$2; shift 2 ;;
	--hub=*) HUB=${1#*=}; shift ;;
	--bin) need "$@"; BIN=$2; shift 2 ;;
	--bin=*) BIN=${1#*=}; shift ;;
	--state-dir) need "$@"; STATE_DIR=$2; shift 2 ;;
	--state-dir=*) STATE_DIR=${1#*=}; shift ;;
	--no-systemd) SYSTEMD=0; shift ;;
	-h | --help) usage; exit 0 ;;
	*) usage >&2; die "unknown option $1" ;;
	esac
done

[ -n "$TOKEN" ] || die "--token is required (POST /v1/enrolments on the hub gives one)"
[ "$(uname -s)" = Linux ] || die "vigil agent supports Linux only (x86_64, aarch64) for now"
case "$(uname -m)" in
x86_64 | amd64) ARCH=x64 ;;
aarch64 | arm64) ARCH=arm64 ;;
*) die "vigil agent runs on x86_64 and aarch64, not $(uname -m)" ;;
esac
command -v curl >/dev/null 2>&1 || die "curl is required"
command -v sha256sum >/dev/null 2>&1 || die "sha256sum (coreutils) is required"
if [ "$SYSTEMD" = 1 ] && [ "$(id -u)" != 0 ]; then
	die "run it as root (| sudo sh -s -- …), or pass --no-systemd with --bin and --state-dir you can write"
fi

# With a pin, curl checks the hub's public key instead of a certificate authority: -k turns off
# only the chain check, --pinnedpubkey still refuses any other key.
fetch() {
	if [ -n "$PIN" ]; then
		curl -sSL --retry 3 -k --pinnedpubkey "$PIN" "$@"
	else
		curl -sSL --retry 3 "$@"
	fi
}

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT INT TERM

# Downloads a path of the hub into a file; prints the HTTP status (000: no answer). The body of a
# refusal is kept in the file: the hub says there why, and what to do.
download() {
	fetch -o "$2" -w '%{http_code}' "$HUB$1" 2>"$TMP/curl.err" || true
}

refused() {
	echo "vigil install: $HUB$1 answered $2:" >&2
	if [ "$2" = 000 ]; then cat "$TMP/curl.err" >&2; else head -c 2000 "$3" >&2; fi
	exit 1
}

# gzip is on every Linux; the compressed executable is about half the size
echo "vigil install: downloading vigil-linux-$ARCH from $HUB"
CODE=503
if command -v gzip >/dev/null 2>&1; then
	CODE=$(download "/download/vigil-linux-$ARCH.gz" "$TMP/vigil.gz")
	if [ "$CODE" = 200 ]; then
		gzip -dc "$TMP/vigil.gz" >"$TMP/vigil" || die "the download is damaged: gzip could not unpack it"
		rm -f "$TMP/vigil.gz"
	elif [ "$CODE" != 503 ]; then
		refused "/download/vigil-linux-$ARCH.gz" "$CODE" "$TMP/vigil.gz"
	fi
fi
if [ "$CODE" != 200 ]; then
	CODE=$(download "/download/vigil-linux-$ARCH" "$TMP/vigil")
	[ "$CODE" = 200 ] || refused "/download/vigil-linux-$ARCH" "$CODE" "$TMP/vigil"
fi
CODE=$(download "/download/vigil-linux-$ARCH.sha256" "$TMP/vigil.sha256")
[ "$CODE" = 200 ] || refused "/download/vigil-linux-$ARCH.sha256" "$CODE" "$TMP/vigil.sha256"
EXPECTED=$(cut -d ' ' -f 1 <"$TMP/vigil.sha256")
ACTUAL=$(sha256sum "$TMP/vigil" | cut -d ' ' -f 1)
[ "$EXPECTED" = "$ACTUAL" ] || die "the download is damaged: SHA-256 $ACTUAL, the hub says $EXPECTED"
chmod 0755 "$TMP/vigil"
"$TMP/vigil" version >/dev/null 2>&1 || die "the downloaded executable does not run on this machine"

mkdir -p "$(dirname "$BIN")"
cp "$TMP/vigil" "$BIN.new"
mv -f "$BIN.new" "$BIN"
echo "vigil install: installed $BIN ($("$BIN" version))"

set -- agent enrol --hub "$HUB" --token "$TOKEN"
if [ -n "$PIN" ]; then set -- "$@" --pin "$PIN"; fi
if [ -n "$STATE_DIR" ]; then set -- "$@" --state-dir "$STATE_DIR"; fi
"$BIN" "$@" || die "enrolment failed (see above); ask for a new token if this one is used or expired"

if [ "$SYSTEMD" = 1 ]; then
	"$BIN" agent install --hub "$HUB" --bin "$BIN" || die "could not install the systemd unit"
else
	echo "vigil install: enrolled; run it with: $BIN agent --hub $HUB${STATE_DIR:+ --state-dir $STATE_DIR}"
fi
