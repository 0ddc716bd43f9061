import type { JsonSchema } from '../api.js';
import { html } from '../html.js';

/** The kind of input a property gets. */
type Kind = 'string' | 'number' | 'integer' | 'boolean' | 'enum' | 'json';

function kindOf(schema: JsonSchema): Kind {
  if (Array.isArray(schema.enum) && schema.enum.every((v) => typeof v === 'string')) return 'enum';
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== 'null') : schema.type;
  if (type === 'string' || type === 'number' || type === 'integer' || type === 'boolean') {
    return type;
  }
  return 'json';
}

/**
 * Inputs for each property of a tool's input schema: text, number, checkbox, a choice for a
 * string enum, and JSON text for anything else. Values are read back by {@link readForm}. The
 * inputs are uncontrolled (defaults only): a re-render, as every live-log event causes, keeps
 * what the operator typed or ticked.
 */
export function SchemaFields({ schema }: { schema: JsonSchema }) {
  const properties = Object.entries(schema.properties ?? {});
  const required = new Set(schema.required ?? []);
  if (properties.length === 0) {
    return html`<p class="hint">This tool takes no arguments.</p>`;
  }
  return html`${properties.map(([name, prop]) => {
    const kind = kindOf(prop);
    const label = html`<span class="name">${name}${required.has(name) ? ' *' : ''}</span>
      <small>${prop.description ?? ''}</small>`;
    const common = { name, 'data-kind': kind, required: required.has(name) && kind !== 'boolean' };
    const initial = prop.default === undefined ? '' : prop.default;
    if (kind === 'boolean') {
      return html`<label class="field check"
        ><input type="checkbox" ...${common} defaultChecked=${initial === true} />${label}</label
      >`;
    }
    if (kind === 'enum') {
      return html`<label class="field"
        >${label}
        <select ...${common}>
          ${required.has(name) ? null : html`<option value="">(none)</option>`}
          ${(prop.enum as string[]).map((v) => html`<option value=${v} selected=${v === initial}>${v}</option>`)}
        </select></label
      >`;
    }
    if (kind === 'json') {
      return html`<label class="field"
        >${label}
        <textarea
          rows="3"
          placeholder="JSON"
          defaultValue=${initial === '' ? '' : JSON.stringify(initial)}
          ...${common}
        ></textarea>
      </label>`;
    }
    return html`<label class="field"
      >${label}
      <input
        type=${kind === 'string' ? 'text' : 'number'}
        step=${kind === 'integer' ? '1' : 'any'}
        defaultValue=${typeof initial === 'string' || typeof initial === 'number' ? String(initial) : ''}
        ...${common}
    /></label>`;
  })}`;
}

/**
 * The arguments a form holds: empty optional fields left out, numbers as numbers, JSON parsed.
 *
 * @throws {Error} naming the field whose JSON does not parse.
 */
export function readForm(form: HTMLFormElement): Record<string, unknown> {
  const args: Record<string, unknown> = {};
  for (const element of Array.from(form.elements)) {
    if (
      !(element instanceof HTMLInputElement) &&
      !(element instanceof HTMLSelectElement) &&
      !(element instanceof HTMLTextAreaElement)
    ) {
      continue;
    }
    const kind = element.dataset.kind as Kind | undefined;
    if (kind === undefined || element.name === '') continue;
    if (kind === 'boolean') {
      args[element.name] = (element as HTMLInputElement).checked;
      continue;
    }
    const value = element.value;
    if (value === '') continue;
    if (kind === 'number' || kind === 'integer') args[element.name] = Number(value);
    else if (kind === 'json') {
      try {
        args[element.name] = JSON.parse(value) as unknown;
      } catch {
        throw new Error(`"${element.name}" is not valid JSON`);
      }
    } else args[element.name] = value;
  }
  return args;
}
