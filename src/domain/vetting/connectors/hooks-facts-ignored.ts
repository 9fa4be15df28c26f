// What the capability inventory leaves out as ordinary, so what it lists is what a reviewer must see
// (decisions 363 and 364): variables every script reads without learning anything about the user,
// and programs that neither reach the network nor run other programs by design.

const words = (text: string): ReadonlySet<string> => new Set(text.trim().split(/\s+/));

/** Variables that only say where or how the script runs, the shell's own, and those Claude Code sets for a plugin. */
const plainVariables = words(`
  HOME PATH PWD OLDPWD SHELL USER LOGNAME TMPDIR IFS TERM LANG TZ COLUMNS LINES
  BASH BASH_SOURCE BASH_LINENO BASH_REMATCH BASH_VERSION BASH_VERSINFO BASH_ARGV BASH_ARGC BASH_SUBSHELL
  BASHPID FUNCNAME LINENO RANDOM SRANDOM SECONDS EPOCHSECONDS EPOCHREALTIME PIPESTATUS OPTARG OPTIND OPTERR
  REPLY UID EUID PPID GROUPS HOSTNAME HOSTTYPE OSTYPE MACHTYPE SHLVL SHELLOPTS BASHOPTS DIRSTACK PS1 PS2 PS4
  ZSH_VERSION ZSH_NAME
  CLAUDE_PLUGIN_ROOT CLAUDE_PLUGIN_DATA CLAUDE_PROJECT_DIR CLAUDE_ENV_FILE CLAUDE_CODE_REMOTE
  CLAUDE_CODE_ENTRYPOINT CLAUDECODE
`);

/**
 * Not an environment variable worth listing: a positional parameter (`$1`, `$0`), one of the list above,
 * a locale setting (`LC_*`), or a user-configuration option Claude Code hands the plugin on purpose
 * (`CLAUDE_PLUGIN_OPTION_*`). Other CLAUDE_* variables are listed: CLAUDE_CODE_OAUTH_TOKEN is a secret.
 */
export const ignoredVariable = (name: string): boolean =>
  /^\d+$/.test(name) || plainVariables.has(name) || /^LC_\w+$/.test(name) || /^CLAUDE_PLUGIN_OPTION_\w+$/.test(name);

/** Shell builtins and keywords: they run no program. */
const builtins = words(`
  : . [ [[ alias bg bind break builtin caller cd command compgen complete compopt continue declare dirs
  disown echo enable eval exec exit export false fc fg getopts hash help history jobs kill let local logout
  mapfile popd printf pushd pwd read readarray readonly return set shift shopt source suspend test times
  trap true type typeset ulimit umask unalias unset wait
`);

/**
 * Plain file and text utilities (coreutils, findutils, grep, sed, awk, diff, jq, which): they read and
 * write files and text and reach no network. What xargs and `find -exec` run is listed (hooks-facts.ts),
 * and the files tee, cp, mv, install, ln, touch, mkdir, dd and `sed -i` write outside the project are.
 */
const utilities = words(`
  awk basename cat chgrp chmod chown cksum cmp column comm cp cut date dd df diff dirname du egrep env
  expand expr fgrep find fmt fold gawk grep head hostname id install join jq less ln ls mawk md5sum mkdir
  mkfifo mktemp more mv nl nproc od paste printenv readlink realpath rm rmdir sed seq sha1sum sha256sum
  sha512sum shasum shuf sleep sort split stat sum tac tail tee timeout touch tr truncate tty uname uniq
  unlink wc which whoami xargs yes
`);

/** A builtin or a plain utility: running it is not a capability worth listing. */
export const ignoredProgram = (name: string): boolean => builtins.has(name) || utilities.has(name);
