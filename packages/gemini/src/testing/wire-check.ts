import { checkSchema, checkToolName } from '@toolplane/adapter-kit';
import { isPlainObject } from '@toolplane/toolmodel';

// What the Gemini API documents for the requests this adapter shapes: function declarations
// (name rule, parameters in its Schema subset), and every function call of a model turn answered
// by a functionResponse of the same name (and ID, when the call had one) in the next user turn,
// with an object response and inline image data.

type Json = Record<string, unknown>;

/** Problems in a `generateContent` request body. */
export function checkGenerateContentRequest(body: Json): string[] {
  const problems: string[] = [];
  const tools = Array.isArray(body.tools) ? (body.tools as unknown[]) : [];
  tools.forEach((tool, i) => {
    const declarations = isPlainObject(tool) ? tool.functionDeclarations : undefined;
    if (!Array.isArray(declarations)) return;
    declarations.forEach((declaration: unknown, j) => {
      const at = `tools/${String(i)}/functionDeclarations/${String(j)}`;
      if (!isPlainObject(declaration)) {
        problems.push(`${at}: not an object`);
        return;
      }
      if (typeof declaration.name !== 'string' || !checkToolName(declaration.name, 'gemini')) {
        problems.push(
          `${at}: name ${JSON.stringify(declaration.name)} is not a Gemini function name`,
        );
      }
      if (declaration.parameters !== undefined && declaration.parametersJsonSchema !== undefined) {
        problems.push(`${at}: both parameters and parametersJsonSchema`);
      }
      if (declaration.parameters !== undefined) {
        for (const problem of checkSchema(declaration.parameters, 'gemini')) {
          problems.push(`${at} parameters${problem}`);
        }
      }
    });
  });
  const contents = Array.isArray(body.contents) ? (body.contents as unknown[]) : [];
  let open: { name: string; id?: string }[] = [];
  contents.forEach((content, i) => {
    const at = `contents/${String(i)}`;
    const parts =
      isPlainObject(content) && Array.isArray(content.parts) ? (content.parts as unknown[]) : [];
    const role = isPlainObject(content) ? content.role : undefined;
    const responses = parts
      .filter((part): part is Json => isPlainObject(part) && isPlainObject(part.functionResponse))
      .map((part) => part.functionResponse as Json);
    if (open.length > 0) {
      if (role !== 'user' || responses.length !== open.length) {
        problems.push(
          `${at}: ${String(open.length)} function calls need as many functionResponses`,
        );
      }
      responses.forEach((response, j) => {
        const call = open[j];
        if (call === undefined) return;
        if (response.name !== call.name) {
          problems.push(
            `${at}/parts/${String(j)}: answers ${String(response.name)}, the call was ${call.name}`,
          );
        }
        if (call.id !== undefined && response.id !== call.id) {
          problems.push(
            `${at}/parts/${String(j)}: id ${String(response.id)} is not the call's ${call.id}`,
          );
        }
        if (!isPlainObject(response.response))
          problems.push(`${at}/parts/${String(j)}: response is not an object`);
        const inline = Array.isArray(response.parts) ? (response.parts as unknown[]) : [];
        for (const part of inline) {
          const data = isPlainObject(part) ? part.inlineData : undefined;
          if (
            !isPlainObject(data) ||
            typeof data.mimeType !== 'string' ||
            typeof data.data !== 'string'
          ) {
            problems.push(`${at}/parts/${String(j)}: a response part without inline data`);
          }
        }
      });
    } else if (responses.length > 0) {
      problems.push(`${at}: functionResponse without a function call`);
    }
    open =
      role === 'model'
        ? parts
            .filter((part): part is Json => isPlainObject(part) && isPlainObject(part.functionCall))
            .map((part) => {
              const call = part.functionCall as Json;
              return {
                name: String(call.name),
                ...(typeof call.id === 'string' ? { id: call.id } : {}),
              };
            })
        : [];
  });
  return problems;
}

/** The checker for whichever endpoint a request went to. */
export function checkGeminiRequest(path: string, body: Json): string[] {
  return path.endsWith(':generateContent')
    ? checkGenerateContentRequest(body)
    : [`unexpected path ${path}`];
}
