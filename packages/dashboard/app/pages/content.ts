import type { ContentBlock } from '../api.js';
import { html } from '../html.js';

// Raster images only: an SVG could carry script were it ever opened on its own.
const SAFE_IMAGE = /^image\/(png|jpeg|gif|webp)$/;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/**
 * A tool result's content blocks, rendered as text and elements (never as HTML): text in a
 * `<pre>`, raster images from their base64 data, resources by URI with their text.
 */
export function Content({ blocks }: { blocks: ContentBlock[] }) {
  return html`${blocks.map((block) => {
    switch (block.type) {
      case 'text':
        return html`<pre class="block text">${block.text ?? ''}</pre>`;
      case 'image':
        return SAFE_IMAGE.test(block.mimeType ?? '') && BASE64.test(block.data ?? '')
          ? html`<figure class="block image">
              <img
                alt="image from the tool"
                src=${`data:${block.mimeType ?? ''};base64,${block.data ?? ''}`}
              />
              <figcaption>${block.mimeType}</figcaption>
            </figure>`
          : html`<p class="block">an image of type ${block.mimeType ?? '?'} (not shown)</p>`;
      case 'resource':
        return html`<div class="block resource">
          <code>${block.resource?.uri ?? ''}</code>
          ${
            block.resource?.text === undefined
              ? html`<p>
                  ${block.resource?.mimeType ?? 'binary'}
                  (${String(block.resource?.blob?.length ?? 0)} base64 characters)
                </p>`
              : html`<pre>${block.resource.text}</pre>`
          }
        </div>`;
      case 'resource_link':
        return html`<p class="block resource">
          link: <code>${block.uri ?? ''}</code> ${block.name ?? ''}
        </p>`;
      default:
        return html`<pre class="block">${JSON.stringify(block, null, 2)}</pre>`;
    }
  })}`;
}
