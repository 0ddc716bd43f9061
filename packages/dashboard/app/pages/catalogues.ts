import { html } from '../html.js';
import { useApi } from './use-api.js';

interface PromptRow {
  namespace: string;
  name: string;
  description?: string;
  arguments: { name: string; required: boolean; description?: string }[];
}
interface ResourceRow {
  namespace: string;
  name: string;
  uri: string;
  description?: string;
  mimeType?: string;
}
interface ListError {
  namespace: string;
  message: string;
}

function Errors({ errors }: { errors?: ListError[] }) {
  if (errors === undefined || errors.length === 0) return null;
  return html`<ul class="error">
    ${errors.map((e) => html`<li>${e.namespace}: ${e.message}</li>`)}
  </ul>`;
}

/** The prompts of every namespace, with their arguments. */
export function Prompts({ version }: { version: number }) {
  const { data, error } = useApi<{ prompts: PromptRow[]; errors: ListError[] }>('prompts', [
    version,
  ]);
  return html`
    <h2>Prompts</h2>
    ${error === undefined ? null : html`<p class="error">${error}</p>`}
    <${Errors} errors=${data?.errors} />
    <table>
      <thead>
        <tr>
          <th>Prompt</th>
          <th>Description</th>
          <th>Arguments</th>
        </tr>
      </thead>
      <tbody>
        ${(data?.prompts ?? []).map(
          (p) =>
            html`<tr>
              <td><code>${p.namespace}:${p.name}</code></td>
              <td>${p.description ?? ''}</td>
              <td>${p.arguments.map((a) => `${a.name}${a.required ? '*' : ''}`).join(', ')}</td>
            </tr>`,
        )}
      </tbody>
    </table>
  `;
}

/** The resources of every namespace. */
export function Resources({ version }: { version: number }) {
  const { data, error } = useApi<{ resources: ResourceRow[]; errors: ListError[] }>('resources', [
    version,
  ]);
  return html`
    <h2>Resources</h2>
    ${error === undefined ? null : html`<p class="error">${error}</p>`}
    <${Errors} errors=${data?.errors} />
    <table>
      <thead>
        <tr>
          <th>Resource</th>
          <th>URI</th>
          <th>Type</th>
          <th>Description</th>
        </tr>
      </thead>
      <tbody>
        ${(data?.resources ?? []).map(
          (r) =>
            html`<tr>
              <td><code>${r.namespace}:${r.name}</code></td>
              <td><code>${r.uri}</code></td>
              <td>${r.mimeType ?? ''}</td>
              <td>${r.description ?? ''}</td>
            </tr>`,
        )}
      </tbody>
    </table>
  `;
}
