/**
 * A large, ordinary article page (headings, paragraphs with links and emphasis, lists, tables,
 * code, navigation chrome, scripts) of about `bytes` bytes, for the HTML → markdown benchmark.
 */
export function samplePage(bytes = 1_800_000): string {
  const head = '<!doctype html><html><head><title>Sample</title><style>body{font:16px sans-serif}</style><script>window.x=1</script></head><body><nav><ul><li><a href="/">Home</a></li><li><a href="/docs">Docs</a></li></ul></nav><main>';
  const tail = '</main><footer><p>© Example</p></footer></body></html>';
  const sections: string[] = [];
  let size = head.length + tail.length;
  for (let index = 0; size < bytes; index++) {
    const section =
      `<section id="s${index}"><h2>Section ${index}: measuring things</h2>` +
      `<p>Paragraph ${index} has <a href="https://example.com/${index}">a link</a>, <em>emphasis</em>, <strong>strong text</strong> and <code>inline code</code>. Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore et dolore magna aliqua.</p>` +
      `<ul><li>First point ${index}</li><li>Second point with <a href="/p/${index}">a reference</a></li><li>Third point</li></ul>` +
      `<table><thead><tr><th>Name</th><th>Value</th></tr></thead><tbody><tr><td>alpha</td><td>${index}</td></tr><tr><td>beta</td><td>${index * 2}</td></tr></tbody></table>` +
      `<pre><code>const value = ${index};\nconsole.log(value);</code></pre>` +
      `<blockquote><p>Quoted text ${index}.</p></blockquote><div class="ad"><script>track(${index})</script></div></section>`;
    sections.push(section);
    size += section.length;
  }
  return head + sections.join('') + tail;
}
