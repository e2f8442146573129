# Sourced by the cloud tests: a Daytona test server (daytona_server.py) on loopback with a CA
# of its own (made here with openssl, never committed), conch-place pointed at it through
# cloud.api_url and cloud.ca_file, and the check helpers. Needs top and bin set.
. "$top/tests/lib/wait.sh"
T=$(mktemp -d /tmp/conch-cloud-test.XXXXXX)
server_pid=
cleanup() {
    [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null && wait_gone 30 "$server_pid"
    rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 1' INT TERM # through the EXIT trap: a trap that only cleaned up went on without $T


fails=0
ok() { echo "ok: $1"; }
bad() { echo "FAIL: $1"; fails=$((fails + 1)); }
check() { if eval "$2"; then ok "$1"; else bad "$1"; fi; }

# The CA and the server's certificate: localhost and 127.0.0.1.
openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=conch-test-ca \
    -keyout "$T/ca.key" -out "$T/ca.pem" 2>/dev/null
openssl req -newkey rsa:2048 -nodes -subj /CN=localhost -keyout "$T/srv.key" \
    -out "$T/srv.csr" 2>/dev/null
printf 'subjectAltName=DNS:localhost,IP:127.0.0.1\n' >"$T/ext"
openssl x509 -req -in "$T/srv.csr" -CA "$T/ca.pem" -CAkey "$T/ca.key" -CAcreateserial \
    -days 1 -extfile "$T/ext" -out "$T/srv.pem" 2>/dev/null

KEY=dtn_test_$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')
printf '%s\n' "$KEY" >"$T/apikey"
mkdir -p "$T/state"
python3 "$top/tests/cloud/daytona_server.py" "$T/state" "$T/srv.pem" "$T/srv.key" "$T/apikey" \
    2>"$T/server.err" &
server_pid=$!
# Ready once it has written its ports (after it listens), or given up when it ended first.
server_up() { [ -s "$T/state/ports" ] || _wait_pid_gone "$server_pid"; }
wait_until 60 server_up
[ -s "$T/state/ports" ] || { cat "$T/server.err"; echo "FAIL: the test server did not start"; exit 1; }
read -r PORT EVIL <"$T/state/ports"
API=https://localhost:$PORT

ctl() { curl -sS --cacert "$T/ca.pem" -X POST -d "$2" "$API/__test/$1" >/dev/null; }
state() { curl -sS --cacert "$T/ca.pem" "$API/__test/state"; }
count() { grep -c "$1" "$T/state/requests.log" 2>/dev/null || echo 0; }

export CONCH_HOME="$T/home" HOME="$T/userhome"
unset DAYTONA_API_KEY HTTPS_PROXY https_proxy ALL_PROXY all_proxy
mkdir -p "$HOME"
"$bin" config set cloud.api_url "$API/api" && "$bin" config set cloud.ca_file "$T/ca.pem" ||
    { echo "FAIL: config"; exit 1; }
