#!/usr/bin/env bash
# Install code-server 4.100.3 (VS Code 1.100.3, the newest that runs on Node 20) for the
# end-to-end test, offline-safe: nothing is fetched beyond Debian and the npm registry.
# About 1.5 min and 302 MB. Usage: scripts/install-code-server.sh [PREFIX]
# (default PREFIX: vscode-extension/.e2e/code-server). Skips the work when already installed.
set -euo pipefail

here="$(cd "$(dirname "$0")/.." && pwd)"
prefix="${1:-${CODE_SERVER_PREFIX:-$here/.e2e/code-server}}"
version="4.100.3"
bin="$prefix/node_modules/.bin/code-server"

if [ -x "$bin" ] && [ -f "$prefix/.installed-$version" ]; then
  echo "code-server $version already installed in $prefix"
  exit 0
fi

need_apt=()
for pkg in libkrb5-dev libxkbfile-dev libsecret-1-dev libx11-dev pkg-config ripgrep chromium; do
  dpkg -s "$pkg" >/dev/null 2>&1 || need_apt+=("$pkg")
done
if [ "${#need_apt[@]}" -gt 0 ]; then
  echo "== apt-get install ${need_apt[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need_apt[@]}"
fi

echo "== npm install code-server@$version into $prefix"
mkdir -p "$prefix"
cd "$prefix"
[ -f package.json ] || echo '{"name":"e2e-code-server","private":true}' >package.json
npm install --no-audit --no-fund --loglevel=error --ignore-scripts "code-server@$version"
npm rebuild argon2

echo "== VS Code's own production dependencies"
cd node_modules/code-server/lib/vscode
npm install --no-audit --no-fund --loglevel=error --omit=dev --ignore-scripts
mkdir -p node_modules/@vscode/ripgrep/bin
cp "$(command -v rg)" node_modules/@vscode/ripgrep/bin/rg
npm_config_yes=true npm rebuild

echo "== code-server postinstall"
cd ../..
npm_config_yes=true npm_config_unsafe_perm=true \
  npm_config_user_agent="npm/11.6.0 node/$(node --version) linux x64" sh ./postinstall.sh

touch "$prefix/.installed-$version"
echo "code-server $version installed: $bin"
