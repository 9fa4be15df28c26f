// A labelled group of checkboxes choosing names (marketplaces, API scopes).
export function NameChecklist({
  legend,
  idPrefix,
  names,
  chosen,
  onChange,
}: {
  legend: string;
  idPrefix: string;
  names: readonly string[];
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
            </li>
          );
        })}
      </ul>
    </fieldset>
  );
}
