// The vetting report's account of plugins an ingest withheld (docs/vetting.md): one HIGH
// `source-unresolved` finding per plugin whose external source could not be read. It is not a chain
// connector (the tree holds nothing to scan for it: the plugin is not in it); the run appends it as a
// verdict of its own, so it can be neither disabled nor reordered. A waiver of it accepts serving the
// marketplace without that plugin; the plugin is never served whatever is waived.
import { manifestPath, type UnresolvedSource } from '../plugin/manifest-policy.ts';
import { locationOf, stateOf, type Finding, type VerdictState } from '../kernel/findings.ts';

/** The name the verdict carries in a run (after the chain's connectors). */
export const sourcesVerdictName = 'sources';

/** One finding per withheld plugin, at the line of its entry in the upstream manifest. */
export function unresolvedSourceFindings(unresolved: readonly UnresolvedSource[]): Finding[] {
  return unresolved.map((u) => ({
    id: 'source-unresolved',
    severity: 'HIGH',
    location: locationOf(manifestPath, u.line),
    message:
      `plugin '${u.plugin}' is withheld: its source ${JSON.stringify(u.source)} could not be read (${u.reason}). ` +
      'It is not served; a waiver accepts serving the marketplace without it.',
  }));
}

/** The verdict on a snapshot's withheld plugins, or null when it withholds none. */
export function withheldPluginsVerdict(unresolved: readonly UnresolvedSource[]): Readonly<{
  connector: string;
  state: VerdictState;
  detail: string;
  findings: Finding[];
}> | null {
  if (unresolved.length === 0) return null;
  const findings = unresolvedSourceFindings(unresolved);
  const n = unresolved.length;
  return {
    connector: sourcesVerdictName,
    state: stateOf(findings),
    detail: `${n} plugin${n === 1 ? '' : 's'} withheld: external source unreadable`,
    findings,
  };
}
