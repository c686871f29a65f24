/** A small element builder: the library renders a few forms and needs no framework. */
type Child = Node | string | null | undefined | false;

export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attributes: Record<string, string | boolean | undefined> = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === true) element.setAttribute(name, '');
    else if (typeof value === 'string') element.setAttribute(name, value);
  }
  for (const child of children) if (child) element.append(child);
  return element;
}

let counter = 0;
/** An id unique within the page, to tie labels and descriptions to their fields. */
export function uid(prefix: string): string {
  counter += 1;
  return `referral-${prefix}-${counter}`;
}
