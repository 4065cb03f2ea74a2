import TurndownService from 'turndown';
const td = new TurndownService({ headingStyle: 'atx', codeBlockStyle: 'fenced' });
td.remove(['script','style','noscript','template','iframe','object','embed','svg','canvas']);
let parts = ['<html><head><title>T</title><style>x{}</style></head><body>'];
let i = 0;
while (parts.join('').length < 1_000_000) { parts.push(`<div class="c"><h2>Heading ${i}</h2><p>Some <b>bold</b> text and <a href="/x/${i}">a link</a>. Lorem ipsum dolor sit amet.</p><ul><li>one</li><li>two</li></ul><script>var a=${i}</script></div>`); i++; }
const html = parts.join('') + '</body></html>';
console.log(html.length);
let t = performance.now(); const md = td.turndown(html); console.log('ms', performance.now() - t, md.length); console.log(md.slice(0, 300));
// pathological: deep nesting
const deep = '<div>'.repeat(50000) + 'x' + '</div>'.repeat(50000);
t = performance.now(); try { td.turndown(deep); console.log('deep ok', performance.now() - t) } catch (e) { console.log('deep err', e.message, performance.now() - t) }
const table = '<table>' + '<tr><td>a</td><td>b</td></tr>'.repeat(30000) + '</table>';
t = performance.now(); td.turndown(table); console.log('table', performance.now() - t, table.length);
