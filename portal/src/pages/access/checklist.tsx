// A labelled group of checkboxes choosing names (marketplaces, API scopes), a name optionally with a hint
// beside it (the catalog among marketplaces).
export function NameChecklist({
  legend,
  idPrefix,
  names,
  hints = {},
  chosen,
  onChange,
}: {
  legend: string;
  idPrefix: string;
  names: readonly string[];
  hints?: Readonly<Record<string, string>>;
  chosen: readonly string[];
  onChange: (next: string[]) => void;
}) {
  const toggle = (name: string, on: boolean) =>
    onChange(on ? [...chosen, name] : chosen.filter((entry) => entry !== name));
  return (
    <fieldset className="name-checklist">
      <legend>{legend}</legend>
      {names.length === 0 ? <p className="muted">None registered.</p> : null}
      <ul>
        {names.map((name) => {
          const id = `${idPrefix}-${name}`;
          return (
            <li key={name}>
              <input
                type="checkbox"
                id={id}
                checked={chosen.includes(name)}
                onChange={(e) => toggle(name, e.target.checked)}
              />
              <label htmlFor={id}>{name}</label>
              {hints[name] ? <span className="muted">({hints[name]})</span> : null}
            </li>
          );
        })}
      </ul>
    </fieldset>
  );
}
