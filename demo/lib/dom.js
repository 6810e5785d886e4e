// Tiny DOM helpers: element builder and labelled form controls.

export function h(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k === 'class') e.className = v;
    else if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children.flat()) if (c !== null && c !== undefined) e.append(c instanceof Node ? c : String(c));
  return e;
}

let uid = 0;
/**
 * A labelled control. kind: 'number' | 'text' | 'select' | 'checkbox'.
 * Returns { root, input, get value() }.
 */
export function field({ label, kind = 'number', value, min, max, step, options, help, name, size }) {
  const id = `f${++uid}-${(name ?? label).replace(/\W+/g, '-').toLowerCase()}`;
  let input;
  if (kind === 'select') {
    input = h('select', { id, name });
    for (const o of options) {
      const [v, text] = Array.isArray(o) ? o : [o, o];
      input.append(h('option', { value: v, selected: String(v) === String(value) }, text));
    }
  } else if (kind === 'checkbox') {
    input = h('input', { id, name, type: 'checkbox', checked: !!value });
  } else {
    input = h('input', { id, name, type: kind, value, min, max, step, size, inputmode: kind === 'number' ? 'numeric' : undefined });
  }
  const helpId = help ? `${id}-help` : undefined;
  if (helpId) input.setAttribute('aria-describedby', helpId);
  const root = h('div', { class: `field field-${kind}` }, h('label', { for: id }, label), input, help ? h('small', { id: helpId }, help) : null);
  if (kind === 'checkbox') root.prepend(input);
  return {
    root,
    input,
    get value() {
      if (kind === 'checkbox') return input.checked;
      if (kind === 'number') {
        let v = Number(input.value);
        if (!Number.isFinite(v)) v = Number(value);
        if (min !== undefined) v = Math.max(Number(min), v);
        if (max !== undefined) v = Math.min(Number(max), v);
        return v;
      }
      return input.value;
    },
  };
}

export function errorBox(message) {
  return h('p', { class: 'error', role: 'alert' }, message);
}

// Yield to the browser so a status message paints before synchronous work.
export const nextFrame = () => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
