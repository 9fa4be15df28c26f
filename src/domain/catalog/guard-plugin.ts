// The first-party plugin `gateway-guard` (docs/guard.md): the catalog carries it when gateway.catalog.guard
// is true. Its SessionStart hook asks the gateway (POST /status/v1/snapshots) whether the commits the client
// holds for the marketplaces it cloned from this gateway are still approved, and tells the user which carry
// revoked content and what to run. The files are kept here, as text, so that every build of the gateway
// ships them and the catalog commit stays a function of its inputs.

export const guardPluginName = 'gateway-guard';
/** The plugin's directory in the catalog tree (constituents live under plugins/<marketplace>/). */
export const guardPluginDir = 'gateway-guard';
export const guardPluginVersion = '1.0.0';
/** Seconds Claude Code lets the hook run; the script's own network bounds stay well inside it. */
export const guardHookTimeoutSeconds = 15;

const description =
  'Warns at session start when a marketplace installed from the Skill Marketplace Gateway carries revoked content.';

const pluginJson = {
  name: guardPluginName,
  version: guardPluginVersion,
  description,
  author: { name: 'Skill Marketplace Gateway' },
  license: 'Apache-2.0',
};

const hooksJson = {
  description: 'gateway-guard: the revocation check at session start',
  hooks: {
    SessionStart: [
      {
        hooks: [
          {
            type: 'command',
            command: 'sh "${CLAUDE_PLUGIN_ROOT}/hooks/session-start.sh"',
            timeout: guardHookTimeoutSeconds,
          },
        ],
      },
    ],
  },
};

const readme = `# gateway-guard

A plugin of the Skill Marketplace Gateway. At the start of every Claude Code session its hook looks at the
marketplaces this machine cloned from the gateway (the catalog and any marketplace added from the gateway's
\`/git/\` address), asks the gateway whether the commits held here are still approved, and, when one was
revoked, names the marketplace and the command that brings it up to date:
\`claude plugin marketplace update <name>\`.

It sends the gateway only pairs of marketplace name and commit id, with the credential git already uses for
the gateway. It stays silent when everything held is approved, and when the gateway cannot be reached it
ends quietly within seconds: a session never waits on it. It needs \`sh\`, \`git\` and \`curl\`.
`;

/**
 * The hook script: POSIX sh with git, curl and awk (Claude Code ships as a native binary, so node is not
 * guaranteed; git is, for any marketplace cloned from the gateway). Every failure ends in exit 0.
 * Written without `${`: this is a template literal.
 */
const script = String.raw`#!/bin/sh
# gateway-guard SessionStart hook (docs/guard.md of the Skill Marketplace Gateway).
# Reads ~/.claude/plugins: known_marketplaces.json, installed_plugins.json and the marketplace clones.
# Sends the gateway the {marketplace, sha} pairs held here, with the credential git uses for it.
# Never fails and never holds the session up: every problem ends quietly with exit 0.

config_dir=$CLAUDE_CONFIG_DIR
[ -n "$config_dir" ] || config_dir=$HOME/.claude
known=$config_dir/plugins/known_marketplaces.json
installed=$config_dir/plugins/installed_plugins.json
[ -f "$known" ] && [ -f "$installed" ] || exit 0
tab=$(printf '\t')

# name, url, installLocation of every known marketplace, one a line (Claude Code writes the file indented).
list=$(awk '
  /^  "[^"]+": [{]/ { split($0, q, "\""); name = q[2]; url = ""; loc = "" }
  /^      "url": "/ { split($0, q, "\""); url = q[4] }
  /^    "installLocation": "/ { split($0, q, "\""); loc = q[4] }
  /^  [}]/ { if (name != "") printf "%s\t%s\t%s\n", name, url, loc; name = "" }
' "$known")

# The gateway behind a marketplace URL: what comes before /git/<name>.
gateway_of() {
  printf '%s\n' "$1" | sed -n 's#^\(https\{0,1\}://[^?]*\)/git/[a-z0-9][a-z0-9_-]*\(\.git\)\{0,1\}/\{0,1\}$#\1#p'
}

# Lines "holder gateway-marketplace sha" for every marketplace cloned from the gateway $1.
holdings_for() {
  printf '%s\n' "$list" | while IFS="$tab" read -r name url loc; do
    [ "$(gateway_of "$url")" = "$1" ] || continue
    case $name in *[!A-Za-z0-9._-]* | '') continue ;; esac
    sha=$(git -C "$loc" rev-parse --verify --quiet HEAD 2>/dev/null) || continue
    record=$loc/.claude-plugin/gateway-catalog.json
    if [ -f "$record" ]; then
      # The gateway's catalog: what it holds are the commits the catalog was composed from.
      awk -v holder="$name" '
        /^  "constituents": \[/ { on = 1; next }
        on && /^  \]/ { on = 0 }
        on && /"marketplace": "/ { split($0, q, "\""); m = q[4] }
        on && /"sha": "/ { split($0, q, "\""); print holder, m, q[4] }
      ' "$record"
    else
      printf '%s %s %s\n' "$name" "$(printf '%s\n' "$url" | sed 's#.*/git/##; s#\.git/\{0,1\}$##; s#/$##')" "$sha"
    fi
  done | grep -E '^[A-Za-z0-9._-]+ [a-z0-9][a-z0-9_-]* [0-9a-f]{40}$' | head -n 256
}

# curl's configuration for the gateway $1 (marketplace URL $2) on stdout: the URL and git's credential for it.
curl_config() {
  printf 'url = "%s/status/v1/snapshots"\n' "$1"
  header=$(git config --get-urlmatch http.extraheader "$2" 2>/dev/null)
  if [ -n "$header" ]; then
    printf 'header = "%s"\n' "$(printf '%s' "$header" | sed 's/[\\"]/\\&/g')"
    return
  fi
  filled=$(printf 'url=%s\n\n' "$2" | GIT_TERMINAL_PROMPT=0 GIT_ASKPASS= SSH_ASKPASS= \
    git -c credential.interactive=false credential fill 2>/dev/null) || return
  user=$(printf '%s\n' "$filled" | sed -n 's/^username=//p')
  pass=$(printf '%s\n' "$filled" | sed -n 's/^password=//p')
  printf 'user = "%s:%s"\n' "$(printf '%s' "$user" | sed 's/[\\"]/\\&/g')" "$(printf '%s' "$pass" | sed 's/[\\"]/\\&/g')"
}

report=''
affected=''
for guard in $(sed -n 's/^    "gateway-guard@\([A-Za-z0-9._-]*\)": \[.*$/\1/p' "$installed"); do
  own=$(printf '%s\n' "$list" | awk -F "$tab" -v n="$guard" '$1 == n { print $2 }')
  gateway=$(gateway_of "$own")
  [ -n "$gateway" ] || continue
  pairs=$(holdings_for "$gateway")
  [ -n "$pairs" ] || continue
  body=$(printf '%s\n' "$pairs" | awk '
    { printf "%s{\"marketplace\":\"%s\",\"sha\":\"%s\"}", (NR > 1 ? "," : "{\"holdings\":["), $2, $3 }
    END { print "]}" }')
  answer=$(curl_config "$gateway" "$own" | curl --silent --connect-timeout 3 --max-time 8 --config - \
    --header 'content-type: application/json' --data-binary "$body" --write-out '\n%{http_code}' 2>/dev/null) || continue
  status=$(printf '%s\n' "$answer" | tail -n 1)
  if [ "$status" = 401 ]; then
    report="$report\\n- $gateway refused the credential git has for it; the check was not made"
    continue
  fi
  [ "$status" = 200 ] || continue
  # One result per pair, in request order (spec, Holdings check).
  revoked=$({
    printf '%s\n' "$pairs"
    echo --
    printf '%s\n' "$answer" | grep -o '"state":"[a-z]*"' | sed 's/.*:"//; s/"$//'
    echo --
    printf '%s\n' "$answer" | grep -o '"revokedAt":[^,}]*' | sed 's/^"revokedAt"://; s/"//g'
  } | awk '
    $0 == "--" { part++; next }
    part == 0 { held[++n] = $0; next }
    part == 1 { state[++s] = $0; next }
    { when[++w] = $0 }
    END {
      for (i = 1; i <= n; i++) if (state[i] == "revoked") {
        split(held[i], h, " "); print h[1], h[2], substr(h[3], 1, 12), when[i]
      }
    }')
  [ -n "$revoked" ] || continue
  while read -r holder marketplace sha when; do
    report="$report\\n- $holder holds $marketplace@$sha, revoked on the gateway ($when)"
    case " $affected " in *" $holder "*) ;; *) affected="$affected $holder" ;; esac
  done <<EOF
$revoked
EOF
done

[ -n "$report" ] || exit 0
advice=''
for holder in $affected; do advice="$advice\\n  claude plugin marketplace update $holder"; done
if [ -n "$advice" ]; then
  message="gateway-guard: installed marketplaces carry content the gateway has revoked:$report\\nRun:$advice\\nthen review the plugins installed from them with /plugin."
else
  message="gateway-guard: the revocation check could not be made:$report"
fi
printf '{"systemMessage":"%s","hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"%s"}}\n' \
  "$message" "$message"
exit 0
`;

/** The plugin's files by path inside its directory. */
export const guardPluginFiles: Readonly<Record<string, string>> = {
  '.claude-plugin/plugin.json': `${JSON.stringify(pluginJson, null, 2)}\n`,
  'hooks/hooks.json': `${JSON.stringify(hooksJson, null, 2)}\n`,
  'hooks/session-start.sh': script,
  'README.md': readme,
};

/** The plugin's entry in the catalog's marketplace.json. */
export const guardCatalogEntry: Readonly<Record<string, unknown>> = {
  name: guardPluginName,
  source: `./${guardPluginDir}`,
  description,
  version: guardPluginVersion,
  author: { name: 'Skill Marketplace Gateway' },
  license: 'Apache-2.0',
};
