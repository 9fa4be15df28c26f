// gateway.mirror.url is a template: `{name}` stands for the marketplace's (or the catalog's) name, e.g.
// https://forge.example/mirror/{name}.git. Pure, so the configuration check and the mirror agree.

export const mirrorNamePlaceholder = '{name}';

/** The mirror repository URL of one served name. */
export const mirrorUrlOf = (template: string, name: string): string =>
  template.split(mirrorNamePlaceholder).join(encodeURIComponent(name));

/** Why `template` is no mirror URL template (one line, never quoting userinfo), or null. */
export function mirrorUrlProblem(template: string): string | null {
  if (!template.includes(mirrorNamePlaceholder)) return `must contain ${mirrorNamePlaceholder} (the served name)`;
  let url: URL;
  try {
    url = new URL(mirrorUrlOf(template, 'x'));
  } catch {
    return 'is not a URL (expected https://forge.example/mirror/{name}.git)';
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'must be an http or https URL';
  // The drift report's url never carries a credential (gateway.mirror.credentials does).
  if (url.username !== '' || url.password !== '')
    return 'must not contain credentials (use gateway.mirror.credentials)';
  if (url.search !== '' || url.hash !== '') return 'must not have a query or fragment';
  return null;
}
