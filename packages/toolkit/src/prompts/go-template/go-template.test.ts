import { describe, expect, it } from 'vitest';
import { ToolError } from '@toolplane/toolmodel';
import { renderTemplate } from '../template.js';

// Expected outputs are what Go's text/template prints for the same template and data: the first
// block is the package documentation's own examples; the rest follow its documented rules (truth,
// range over slices, maps in key order and integers, variables' scope, fmt's %v of each type).
const data = {
  flag: true,
  off: false,
  n: 2,
  big: 1_000_000,
  ratio: 1.5,
  name: 'Ada',
  items: ['a', 'b', 'c'],
  empty: [],
  m: { b: 2, a: 1 },
  user: { name: 'Grace', langs: ['go', 'ts'] },
  blank: '',
};

async function render(source: string, input: unknown = data): Promise<string> {
  return renderTemplate(source, input, { where: 't.md' });
}

describe('Go text/template forms', () => {
  it.each([
    // The package documentation's examples, each printing "output" quoted.
    ['{{"\\"output\\""}}', '"output"'],
    ['{{`"output"`}}', '"output"'],
    ['{{printf "%q" "output"}}', '"output"'],
    ['{{"output" | printf "%q"}}', '"output"'],
    ['{{printf "%q" (print "out" "put")}}', '"output"'],
    ['{{"put" | printf "%s%s" "out" | printf "%q"}}', '"output"'],
    ['{{"output" | printf "%s" | printf "%q"}}', '"output"'],
    ['{{with "output"}}{{printf "%q" .}}{{end}}', '"output"'],
    ['{{with $x := "output" | printf "%q"}}{{$x}}{{end}}', '"output"'],
    ['{{with $x := "output"}}{{printf "%q" $x}}{{end}}', '"output"'],
    ['{{with $x := "output"}}{{$x | printf "%q"}}{{end}}', '"output"'],
    // Trim markers: "{{23 -}} < {{- 45}}" is "23<45".
    ['{{23 -}} < {{- 45}}', '23<45'],
    ['a {{- /* a comment */ -}} b', 'ab'],
    ['[{{/* a comment */}}]', '[]'],
  ])('renders %s as Go documents it', async (source, expected) => {
    expect(await render(source)).toBe(expected);
  });

  it.each([
    // Fields, the dot, and fmt's %v of every JSON type.
    ['{{ .name }}', 'Ada'],
    ['{{ .user.name }}', 'Grace'],
    ['{{ .user.langs }}', '[go ts]'],
    ['{{ .m }}', 'map[a:1 b:2]'],
    ['{{ .n }} {{ .ratio }} {{ .big }} {{ 1000000 }}', '2 1.5 1e+06 1000000'],
    ['{{ .flag }} {{ .off }}', 'true false'],
    ['{{ .missing }}', '<no value>'],
    ['{{ $.name }}{{ with .user }}/{{ .name }}/{{ $.name }}{{ end }}', 'Ada/Grace/Ada'],
    // if / else if / else, and Go's truth.
    ['{{ if .flag }}yes{{ else }}no{{ end }}', 'yes'],
    ['{{ if .off }}yes{{ else }}no{{ end }}', 'no'],
    ['{{ if eq .n 1 }}one{{ else if eq .n 2 }}two{{ else }}many{{ end }}', 'two'],
    ['{{ if .empty }}full{{ else if .blank }}text{{ else }}nothing{{ end }}', 'nothing'],
    ['{{ if .missing }}x{{ else }}y{{ end }}', 'y'],
    // range over a slice, a map (keys in order), an integer; else, break, continue.
    ['{{ range .items }}[{{ . }}]{{ end }}', '[a][b][c]'],
    ['{{ range $i, $v := .items }}{{ $i }}={{ $v }} {{ end }}', '0=a 1=b 2=c '],
    ['{{ range $v := .items }}{{ $v }}{{ end }}', 'abc'],
    ['{{ range $k, $v := .m }}{{ $k }}:{{ $v }};{{ end }}', 'a:1;b:2;'],
    ['{{ range .empty }}x{{ else }}none{{ end }}', 'none'],
    ['{{ range .missing }}x{{ else }}none{{ end }}', 'none'],
    ['{{ range 3 }}{{ . }}{{ end }}', '012'],
    ['{{ range $i, $v := .items }}{{ if eq $i 1 }}{{ break }}{{ end }}{{ $v }}{{ end }}', 'a'],
    ['{{ range $i, $v := .items }}{{ if eq $i 1 }}{{ continue }}{{ end }}{{ $v }}{{ end }}', 'ac'],
    // with / else with / else.
    ['{{ with .user }}{{ .name }}{{ end }}', 'Grace'],
    ['{{ with .missing }}x{{ else with .name }}{{ . }}{{ end }}', 'Ada'],
    ['{{ with .blank }}x{{ else }}empty{{ end }}', 'empty'],
    // Variables: declared, assigned, scoped to their control.
    ['{{ $x := 1 }}{{ if true }}{{ $x = 2 }}{{ end }}{{ $x }}', '2'],
    ['{{ $x := "out" }}{{ with .user }}{{ $x := "in" }}{{ $x }}{{ end }}{{ $x }}', 'inout'],
    // Comparison and logic functions.
    [
      '{{ eq .name "Ada" }} {{ ne .n 2 }} {{ lt 1 2 }} {{ le 2 2 }} {{ gt "b" "a" }} {{ ge 1 2 }}',
      'true false true true true false',
    ],
    ['{{ eq .name "Bob" "Ada" }}', 'true'],
    ['{{ and 1 0 }} {{ and 1 "x" }} {{ or 0 "" }} {{ or 0 "x" }} {{ not .flag }}', '0 x  x false'],
    ['{{ if and .flag (gt .n 1) }}both{{ end }}', 'both'],
    // len, index, slice.
    ['{{ len .items }} {{ len .m }} {{ len "héllo" }}', '3 2 6'],
    ['{{ index .items 1 }} {{ index .m "b" }} {{ index .user "langs" 0 }}', 'b 2 go'],
    ['{{ slice "abcdef" 1 3 }} {{ slice .items 1 }}', 'bc [b c]'],
    // print, println, printf.
    ['{{ print 1 2 "a" 3 }}', '1 2a3'],
    ['{{ println "a" 1 }}', 'a 1\n'],
    ['{{ printf "%d items" (len .items) }}', '3 items'],
    [
      '{{ printf "%5.2f|%-4s|%03d|%v|%t|%x" 3.14159 "ab" 7 .user.langs true 255 }}',
      ' 3.14|ab  |007|[go ts]|true|ff',
    ],
    ['{{ printf "%d %s" 1 }}', '1 %!s(MISSING)'],
    ['{{ printf "%.1e" 123456.0 }}', '1.2e+05'],
    // html, js, urlquery.
    [`{{ html "<a href='x'>&" }}`, '&lt;a href=&#39;x&#39;&gt;&amp;'],
    [`{{ js "it's <b>" }}`, "it\\'s \\u003Cb\\u003E"],
    ['{{ urlquery "a b&c" }}', 'a+b%26c'],
    // The seed's table, called as the seed writes it and in pipelines.
    ['{{ json . }}', JSON.stringify(data)],
    ['{{ .user | json }}', '{"name":"Grace","langs":["go","ts"]}'],
    ['{{ join .items ", " }}|{{ .items | join "-" }}', 'a, b, c|a-b-c'],
    [
      '{{ default "x" .missing }}|{{ default "x" .name }}|{{ .blank | default "none" }}',
      'x|Ada|none',
    ],
    ['{{ upper .name }} {{ .name | lower }} [{{ trim "  t  " }}]', 'ADA ada [t]'],
  ])('renders %s', async (source, expected) => {
    expect(await render(source)).toBe(expected);
  });

  it('binds a string input to the dot', async () => {
    expect(await render('Summarize: {{ . }}', 'Cats sleep.')).toBe('Summarize: Cats sleep.');
  });

  it.each([
    ['{{ define "x" }}y{{ end }}', 1],
    ['line one\n{{ template "x" }}', 2],
    ['{{ block "x" . }}y{{ end }}', 1],
    ['a\nb\n{{ nosuch .a }}', 3],
    ['{{ if .a }}never closed', 1],
    ['{{ .a }}{{ end }}', 1],
    ['{{ $y }}', 1],
    ['{{ $y = 1 }}', 1],
    ['{{ break }}', 1],
    ['{{ .a }}\n{% if x %}y{% endif %}', 2],
    ['{{ .a | default: "x" }}', 1],
    ['{{ .a "unterminated }}', 1],
    ['{{ .a (.b }}', 1],
    [`{{ ${'('.repeat(200)}.a${')'.repeat(200)} }}`, 1],
  ])('refuses %s when it is loaded, naming line %i', async (source, line) => {
    const error = await render(source).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ToolError);
    expect((error as ToolError).code).toBe('invalid_prompt');
    expect((error as ToolError).message).toContain(`t.md:${line}`);
  });

  it.each([
    ['{{ index .items 5 }}'],
    ['{{ .missing.field }}'],
    ['{{ .name.field }}'],
    ['{{ range .name }}x{{ end }}'],
    ['{{ len .n }}'],
    ['{{ lt .name 1 }}'],
    ['{{ printf "%99999d" 1 }}'],
  ])('fails %s at render with invalid_prompt, as Go fails it', async (source) => {
    await expect(render(source)).rejects.toMatchObject({ code: 'invalid_prompt' });
  });

  it('bounds the output and the time a render takes', async () => {
    await expect(
      renderTemplate(
        '{{ range 100000000 }}{{ . }}{{ end }}',
        {},
        {
          where: 't.md',
          limits: { maxOutputLength: 1000 },
        },
      ),
    ).rejects.toMatchObject({ code: 'invalid_prompt' });
    await expect(
      renderTemplate(
        '{{ range 100000000 }}{{ end }}',
        {},
        {
          where: 't.md',
          limits: { timeLimitMs: 20 },
        },
      ),
    ).rejects.toMatchObject({ code: 'invalid_prompt' });
  });

  it('never reads a prototype', async () => {
    expect(await render('{{ .constructor }}|{{ .__proto__ }}|{{ .toString }}', { a: 1 })).toBe(
      '<no value>|<no value>|<no value>',
    );
    expect(await render('{{ index . "constructor" }}', { a: 1 })).toBe('<nil>');
  });

  it('leaves Liquid templates to Liquid', async () => {
    expect(await render('{{ name | upcase }} {% if flag %}on{% endif %}')).toBe('ADA on');
  });
});
