/** The demo shop's pages: a shop on the sandbox that adds the embedded library as docs/embedding.md says. */

export interface DemoPage {
  title: string;
  body: string;
  /** The page's own calls to the library, after the queue stub and the script tag. */
  script?: string;
}

const escapes: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
export const html = (text: string) => text.replace(/[&<>"']/g, (c) => escapes[c]);
/** A value for an inline script: JSON that cannot close the script element. */
export const scriptValue = (value: unknown) => JSON.stringify(value).replace(/</g, '\\u003c');

export function demoPage(page: DemoPage, library: { src: string; publishableKey: string }): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${html(page.title)} · Sandbox Outdoor Co. (demo)</title>
<style>${CSS}</style>
<script>window.referral=window.referral||function(){(referral.q=referral.q||[]).push(arguments)};</script>
<script async src="${html(library.src)}" data-publishable-key="${html(library.publishableKey)}"></script>
${page.script ? `<script>${page.script}</script>` : ''}
</head>
<body>
<header><a class="brand" href="/sandbox/demo">Sandbox Outdoor Co.</a><span class="tag">demo shop on the sandbox</span></header>
<main>${page.body}</main>
<footer><p>A page of the sandbox: its data returns to the baseline every 30 minutes. How it is built: <code>docs/embedding.md</code>.</p></footer>
</body>
</html>`;
}

const CSS = `
*{box-sizing:border-box}body{margin:0;font:16px/1.55 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1d2a22;background:#f5f3ee}
header{display:flex;flex-wrap:wrap;gap:8px 16px;align-items:baseline;padding:16px 24px;background:#1f4d3a;color:#fff}
.brand{color:#fff;font-weight:700;font-size:20px;text-decoration:none}.tag{font-size:14px;opacity:.8}
main{max-width:1040px;margin:0 auto;padding:24px}
h1{font-size:28px;line-height:1.2;margin:8px 0 16px}h2{font-size:20px;margin:0 0 8px}
.grid{display:grid;grid-template-columns:repeat(auto-fit,minmax(300px,1fr));gap:24px;align-items:start}
.panel{background:#fff;border:1px solid #dcd6c8;border-radius:12px;padding:20px}
.product .picture{height:180px;border-radius:8px;background:linear-gradient(135deg,#3f7d5c,#a7c957);margin-bottom:16px}
.price{font-size:22px;font-weight:700;margin:4px 0 12px}
.note{background:#fff8e1;border:1px solid #f0d68a;border-radius:10px;padding:12px 16px;margin:0 0 20px}
label{display:block;font-weight:600;margin:12px 0 4px}input{font:inherit;padding:9px 11px;border:1px solid #b9b2a3;border-radius:6px;width:100%}
.button{display:inline-block;font:inherit;font-weight:600;background:#1f4d3a;color:#fff;border:0;border-radius:6px;padding:10px 18px;margin-top:14px;text-decoration:none;cursor:pointer}
.button:focus-visible,a:focus-visible,input:focus-visible{outline:3px solid #a7c957;outline-offset:2px}
code{background:#ece7db;padding:1px 5px;border-radius:4px;font-size:.92em;word-break:break-all}
footer{max-width:1040px;margin:0 auto;padding:8px 24px 32px;font-size:14px;color:#5b6660}
#referral-advocate,#referral-capture{--referral-accent:#1f4d3a;--referral-radius:12px}
`;
