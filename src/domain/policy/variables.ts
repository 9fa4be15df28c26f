// The policy variables (docs/policy-variables.md; a rule must compile to a boolean over them): what a
// CEL rule sees about the snapshot being approved. A public contract: rules stored by admins name these
// fields, so a field is added, never renamed or removed. Pure: the caller loads everything, including
// the evaluation instant.
import type { Instant } from '../kernel/decider.ts';
import type { SnapshotState } from '../kernel/snapshot-state.ts';
import { forgeOf } from '../kernel/forge.ts';
import type { InventoryComponent, InventoryPlugin } from '../plugin/inventory.ts';
import type { Finding } from '../kernel/findings.ts';
import type { LicenseEntry } from '../vetting/license.ts';

// ---- What the caller passes --------------------------------------------------------------------------

/** A finding of the latest vetting run, with its connector and whether an active waiver suppresses it. */
export type PolicyFindingInput = Finding & Readonly<{ connector: string; waived: boolean }>;

export type PolicyInputs = Readonly<{
  /** The instant the rules are evaluated at (the approval's, or the playground call's): releaseAge is measured to it. */
  at: Instant;
  snapshot: Readonly<{
    id: number;
    sha: string;
    upstreamSha: string;
    state: SnapshotState;
    capturedAt: Instant;
    ingestedBy: string | null;
    /** Files in the snapshot's tree. */
    fileCount: number;
  }>;
  marketplace: Readonly<{ name: string; origin: 'upstream' | 'hosted'; url: string | null }>;
  plugins: readonly InventoryPlugin[];
  /** Every finding of the latest run (empty when never vetted). */
  findings: readonly PolicyFindingInput[];
  licenses: readonly LicenseEntry[];
  /** gateway.vetting.minimum-release-age. */
  minimumReleaseAgeMs: number;
  /** Every role of the approving principal; only those that apply to this marketplace are kept (global or this marketplace's). */
  approver: Readonly<{ principal: string; roles: readonly Readonly<{ role: string; marketplace: string | null }>[] }>;
}>;

// ---- What a rule sees ----------------------------------------------------------------------------------
// Plain JSON: integers are numbers and capturedAt an ISO string here; the CEL adapter turns them into CEL
// int and timestamp from the schema below. No nulls: an absent string is '' so a rule never needs has().

export type PolicyComponent = { name: string; path: string };
export type PolicyHook = {
  event: string;
  matcher: string;
  type: string;
  runs: string;
  location: string;
  declaredBy: string;
};
export type PolicyPlugin = {
  name: string;
  description: string;
  source: string;
  skills: PolicyComponent[];
  commands: PolicyComponent[];
  agents: PolicyComponent[];
  hooks: PolicyHook[];
  mcpServers: PolicyComponent[];
  lspServers: PolicyComponent[];
};
export type PolicySnapshot = {
  id: number;
  sha: string;
  upstreamSha: string;
  state: string;
  marketplace: string;
  capturedAt: Instant;
  ingestedBy: string;
  plugins: PolicyPlugin[];
  files: number;
};
export type PolicyMarketplace = { name: string; origin: string; url: string; forge: string };
export type PolicyFinding = {
  connector: string;
  id: string;
  severity: string;
  location: string;
  message: string;
  waived: boolean;
};
export type PolicyLicense = { spdxId: string; source: string; location: string; declared: string; evaluation: string };
export type PolicyReleaseAge = { seconds: number; minimumSeconds: number };
export type PolicyApprover = { principal: string; roles: string[] };
export type PolicyVariables = {
  snapshot: PolicySnapshot;
  marketplace: PolicyMarketplace;
  findings: PolicyFinding[];
  licenses: PolicyLicense[];
  releaseAge: PolicyReleaseAge;
  approver: PolicyApprover;
};

const component = ({ name, path }: InventoryComponent): PolicyComponent => ({ name, path });

export function policyVariables(inputs: PolicyInputs): PolicyVariables {
  const { snapshot, marketplace } = inputs;
  // forgeOf names a hosted marketplace 'hosted' and an unparsable URL 'unknown': here both are '' (origin says hosted).
  const detected = marketplace.origin === 'hosted' ? '' : forgeOf(marketplace.url).forge;
  return {
    snapshot: {
      id: snapshot.id,
      sha: snapshot.sha,
      upstreamSha: snapshot.upstreamSha,
      state: snapshot.state,
      marketplace: marketplace.name,
      capturedAt: snapshot.capturedAt,
      ingestedBy: snapshot.ingestedBy ?? '',
      files: snapshot.fileCount,
      plugins: inputs.plugins.map((p) => ({
        name: p.name,
        description: p.description ?? '',
        source: p.source,
        skills: p.skills.map(component),
        commands: p.commands.map(component),
        agents: p.agents.map(component),
        hooks: p.hooks.map((h) => ({
          event: h.event,
          matcher: h.matcher ?? '',
          type: h.type,
          runs: h.runs,
          location: h.location,
          declaredBy: h.declaredBy,
        })),
        mcpServers: p.mcpServers.map(component),
        lspServers: p.lspServers.map(component),
      })),
    },
    marketplace: {
      name: marketplace.name,
      origin: marketplace.origin,
      url: marketplace.url ?? '',
      forge: detected === 'unknown' ? '' : detected,
    },
    findings: inputs.findings.map((f) => ({
      connector: f.connector,
      id: f.id,
      severity: f.severity,
      location: f.location,
      message: f.message,
      waived: f.waived,
    })),
    licenses: inputs.licenses.map((l) => ({
      spdxId: l.spdxId ?? '',
      source: l.source,
      location: l.location,
      declared: l.declared ?? '',
      evaluation: l.evaluation,
    })),
    releaseAge: {
      // A capture stamped after `at` (clock skew between writers) reads as age 0, not a negative age.
      seconds: Math.max(0, Math.floor((Date.parse(inputs.at) - Date.parse(snapshot.capturedAt)) / 1000)),
      minimumSeconds: Math.floor(inputs.minimumReleaseAgeMs / 1000),
    },
    approver: {
      principal: inputs.approver.principal,
      roles: [
        ...new Set(
          inputs.approver.roles
            .filter((r) => r.marketplace === null || r.marketplace === marketplace.name)
            .map((r) => r.role),
        ),
      ].sort(),
    },
  };
}

// ---- The schema: CEL types of every field, for the adapter's type checker and for the documentation ----

/** `[CEL type, meaning]`. Types are CEL scalars (`int`, `string`, `bool`, `timestamp`), a type below, or `list<…>` of one. */
export type FieldSpec = readonly [type: string, meaning: string];

/** Object types in declaration order (a type names only types above it). */
export const policyTypes = {
  Component: {
    name: ['string', 'the component name'],
    path: ['string', 'its path inside the snapshot tree'],
  },
  Hook: {
    event: ['string', 'hook event, e.g. `PreToolUse`'],
    matcher: ['string', "tool matcher; '' when none"],
    type: ['string', 'hook type, e.g. `command`'],
    runs: ['string', 'what the hook runs (the command line)'],
    location: ['string', 'the file declaring it'],
    declaredBy: ['string', '`plugin`, `skill <name>` or `agent <name>`'],
  },
  Plugin: {
    name: ['string', 'plugin name from the marketplace manifest'],
    description: ['string', "'' when none"],
    source: ['string', 'the plugin directory, e.g. `./plugins/alpha`'],
    skills: ['list<Component>', 'skills'],
    commands: ['list<Component>', 'slash commands'],
    agents: ['list<Component>', 'agents'],
    hooks: ['list<Hook>', 'hooks'],
    mcpServers: ['list<Component>', 'MCP servers'],
    lspServers: ['list<Component>', 'LSP servers'],
  },
  Snapshot: {
    id: ['int', 'snapshot id'],
    sha: ['string', 'commit the gateway serves'],
    upstreamSha: [
      'string',
      'commit ingested from upstream (differs from sha when the gateway serves a commit of its own)',
    ],
    state: ['string', '`held`, `approved`, `rejected` or `revoked`'],
    marketplace: ['string', 'marketplace name'],
    capturedAt: ['timestamp', 'when the commit was captured'],
    ingestedBy: ['string', "principal that triggered the ingest; '' when not recorded"],
    plugins: ['list<Plugin>', 'the content inventory, one entry per plugin'],
    files: ['int', 'number of files in the tree'],
  },
  Marketplace: {
    name: ['string', 'marketplace name'],
    origin: ['string', '`upstream` or `hosted`'],
    url: ['string', "upstream clone URL; '' for hosted"],
    forge: ['string', "`github`, `gitlab`, `bitbucket`, `gitea`, `azure-devops` or `git`; '' for hosted or unknown"],
  },
  Finding: {
    connector: ['string', 'vetting connector that reported it'],
    id: ['string', 'rule id (what waivers name)'],
    severity: ['string', '`INFO`, `LOW`, `MEDIUM`, `HIGH` or `CRITICAL`'],
    location: ['string', '`path:line`'],
    message: ['string', 'what was found'],
    waived: ['bool', 'an active waiver suppresses it'],
  },
  License: {
    spdxId: ['string', "SPDX id; '' for the unknown-license state"],
    source: ['string', '`file` or `manifest`'],
    location: ['string', 'where it was read'],
    declared: ['string', "the manifest's license string as written; '' for a LICENSE file"],
    evaluation: ['string', '`OK`, `BANNED`, `NOT_ALLOWED` or `UNKNOWN`'],
  },
  ReleaseAge: {
    seconds: ['int', 'whole seconds since capturedAt, at evaluation time'],
    minimumSeconds: ['int', 'configured minimum release age (gateway.vetting.minimum-release-age)'],
  },
  Approver: {
    principal: ['string', 'who is approving'],
    roles: ['list<string>', 'their roles that apply to this marketplace: `admin`, `approver`, `auditor`'],
  },
} as const satisfies Readonly<Record<string, Readonly<Record<string, FieldSpec>>>>;

/** The top-level variables, in the order the documentation lists them. */
export const policyVariableTypes = {
  snapshot: ['Snapshot', 'the snapshot being approved'],
  marketplace: ['Marketplace', 'its marketplace'],
  findings: ['list<Finding>', 'findings of the latest vetting run (empty when never vetted)'],
  licenses: ['list<License>', 'the license report (empty when there is no license information)'],
  releaseAge: ['ReleaseAge', 'age of the capture against the minimum release age'],
  approver: ['Approver', 'the principal approving'],
} as const satisfies Readonly<Record<keyof PolicyVariables, FieldSpec>>;

/** Condensed reference of the variables (docs/policy-variables.md in full); the CEL adapter adds its limits (policyVariablesDoc). */
export const policyVariablesReference: string = [
  'A rule is a CEL expression of type bool; it **denies** an approval when it evaluates to true (or fails to evaluate).',
  "Variables (no nulls: an absent string is `''`; integers are `int`, so compare with `86400`, not `86400.0`):",
  '',
  ...Object.entries(policyVariableTypes).map(([name, [type, meaning]]) => `- \`${name}\` (${type}): ${meaning}`),
  '',
  'Types:',
  '',
  ...Object.entries(policyTypes).map(
    ([name, fields]) =>
      `- ${name}: ${Object.entries(fields)
        .map(([field, [type]]) => `${field} ${type}`)
        .join(', ')}`,
  ),
  '',
  'Examples: `snapshot.plugins.exists(p, size(p.hooks) > 0)`; `findings.exists(f, f.severity == "HIGH" && !f.waived)`;',
  '`licenses.exists(l, l.spdxId == "GPL-3.0-only")`; `releaseAge.seconds < 86400`.',
].join('\n');
