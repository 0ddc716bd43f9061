import htm from 'htm';
import { h } from 'preact';

/** JSX-like tagged templates for Preact: values are escaped text, never parsed as HTML. */
export const html = htm.bind(h);
