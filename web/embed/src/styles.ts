/**
 * The widgets' style, inside their shadow root so the host page's CSS neither breaks nor is broken
 * by it. Themed through the custom properties documented in docs/embedding.md, which inherit into
 * the shadow root from the element the widget is rendered in.
 */
export const STYLES = `
:host{all:initial;display:block;contain:content;
--_accent:var(--referral-accent,#2457d6);--_on-accent:var(--referral-on-accent,#fff);
--_text:var(--referral-text,#1b1f24);--_muted:var(--referral-muted,#59636e);
--_bg:var(--referral-background,#fff);--_border:var(--referral-border,#d0d7de);
--_radius:var(--referral-radius,10px);--_font:var(--referral-font,system-ui,-apple-system,"Segoe UI",Roboto,sans-serif)}
.card{box-sizing:border-box;font:15px/1.45 var(--_font);color:var(--_text);background:var(--_bg);border:1px solid var(--_border);border-radius:var(--_radius);padding:20px;max-width:560px}
*,*::before,*::after{box-sizing:inherit}
h2{font-size:18px;line-height:1.3;margin:0 0 4px}
p{margin:0 0 14px;color:var(--_muted)}
label{display:block;font-weight:600;font-size:14px;margin:12px 0 4px}
.row{display:flex;gap:8px;flex-wrap:wrap}
.row>input{flex:1 1 200px;min-width:0}
input,textarea{font:inherit;color:inherit;background:var(--_bg);border:1px solid var(--_border);border-radius:calc(var(--_radius) * .6);padding:9px 11px;width:100%}
textarea{min-height:72px;resize:vertical}
input[readonly]{background:color-mix(in srgb,var(--_border) 18%,var(--_bg))}
button{font:inherit;font-weight:600;cursor:pointer;border-radius:calc(var(--_radius) * .6);padding:9px 16px;border:1px solid var(--_accent);background:var(--_accent);color:var(--_on-accent)}
button.secondary{background:var(--_bg);color:var(--_accent)}
button:disabled{opacity:.6;cursor:progress}
:is(input,textarea,button,a):focus-visible{outline:3px solid color-mix(in srgb,var(--_accent) 55%,transparent);outline-offset:2px}
.social{display:flex;gap:8px;flex-wrap:wrap;margin-top:12px}
.social button{flex:1 1 140px}
.check{display:flex;gap:8px;align-items:center;font-weight:400;margin-top:10px}
.check input{width:auto;margin:0}
.hint{font-size:13px;color:var(--_muted);margin:4px 0 0}
.status{min-height:1.45em;margin:10px 0 0;font-size:14px;color:var(--_text)}
.status:empty{min-height:0;margin:0}
.status.error{color:var(--referral-error,#b42318)}
.actions{margin-top:12px}
@media (max-width:480px){.card{padding:16px}.row>button,.actions>button{width:100%}}
@media (prefers-reduced-motion:no-preference){button{transition:filter .15s}button:hover:not(:disabled){filter:brightness(1.08)}}
`;
