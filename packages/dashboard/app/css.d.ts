// Stylesheets are bundled by esbuild into app.css; importing one yields nothing.
declare module '*.css';
