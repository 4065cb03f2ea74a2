#!/usr/bin/env bash
# The README's "Production" section as one script (a test runs it, so the README cannot rot).
# Runs the compiled API, one worker and the web server as separate processes on your PostgreSQL
# and Redis, and stops them all on Ctrl-C / SIGTERM.
#
#   DATABASE_URL=postgres://... REDIS_URL=redis://... ADMIN_EMAIL=you@example.com \
#   ADMIN_PASSWORD='a long password' infra/scripts/production-quickstart.sh
#
# Optional: APP_SECRET (generated into APP_SECRET_FILE, default .data/app-secret, when unset), LLM_BASE_URL / LLM_API_KEY /
# LLM_MODEL (without them the scripted demo model is started on DEMO_MODEL_PORT), API_PORT (3001),
# WEB_PORT (3000), WEB_HOST (0.0.0.0), DEMO_MODEL_PORT (4010).
set -euo pipefail
cd "$(dirname "$0")/../.."
: "${DATABASE_URL:?set DATABASE_URL (PostgreSQL)}" "${REDIS_URL:?set REDIS_URL (Redis with noeviction)}"
: "${ADMIN_EMAIL:?set ADMIN_EMAIL}" "${ADMIN_PASSWORD:?set ADMIN_PASSWORD (8+ characters)}"
export DATABASE_URL REDIS_URL
API_PORT="${API_PORT:-3001}" WEB_PORT="${WEB_PORT:-3000}" WEB_HOST="${WEB_HOST:-0.0.0.0}" DEMO_MODEL_PORT="${DEMO_MODEL_PORT:-4010}"

# 1. Install (Node 24 comes pinned in node_modules) and build the compiled output.
[ -x node_modules/.bin/node ] || npm ci --no-audit --no-fund
npm run build

# 2. A secret for encrypting model API keys: the same for the API and every worker. Keep it.
if [ -z "${APP_SECRET:-}" ]; then
  secret_file="${APP_SECRET_FILE:-.data/app-secret}"
  mkdir -p "$(dirname "$secret_file")"
  [ -s "$secret_file" ] || (umask 077 && openssl rand -base64 32 > "$secret_file")
  APP_SECRET="$(cat "$secret_file")"
fi
export APP_SECRET

# 3. Database schema and the first admin (no terminal needed: the password comes on stdin).
npm run migrate
# (On a second run the admin exists already: create-admin says so and exits 1.)
printf '%s\n' "$ADMIN_PASSWORD" | npm run create-admin -- --email "$ADMIN_EMAIL" --password-stdin || true

# 4. A model: any OpenAI-compatible endpoint; without one, the scripted demo model (not an LLM).
pids=()
trap 'kill "${pids[@]}" 2>/dev/null; wait' EXIT
trap 'exit 0' INT TERM
if [ -z "${LLM_BASE_URL:-}" ]; then
  npm run demo-model -- --port "$DEMO_MODEL_PORT" & pids+=($!)
  export LLM_BASE_URL="http://127.0.0.1:$DEMO_MODEL_PORT/v1" LLM_API_KEY=unused LLM_MODEL=agentq-demo
fi

# 5. The three processes; in production each is a service of its own (systemd, compose, k8s).
export NODE_ENV=production
PORT="$API_PORT" HOST=127.0.0.1 npm run start:api & pids+=($!)
npm run start:worker & pids+=($!)
PORT="$WEB_PORT" HOST="$WEB_HOST" API_URL="http://127.0.0.1:$API_PORT" npm run start:web & pids+=($!)

# Ready when PostgreSQL and Redis answer the API, and the web origin proxies to it.
for url in "http://127.0.0.1:$API_PORT/api/ready" "http://127.0.0.1:$WEB_PORT/api/ready"; do
  for _ in $(seq 1 240); do curl -fsS "$url" >/dev/null 2>&1 && break; sleep 0.5; done
done
curl -fsS "http://127.0.0.1:$WEB_PORT/api/ready" && echo
echo "agentq is up at http://127.0.0.1:$WEB_PORT (log in as $ADMIN_EMAIL)"
wait
