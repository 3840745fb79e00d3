// Elements built with textContent only: nothing the API returns (a job's URL, a problem's detail) is
// ever parsed as HTML.

/** h('a', {href: '#/jobs', class: 'x'}, 'text', child, ...): attributes, then text or nodes. */
export function h(tag, attributes = {}, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith('on') && typeof value === 'function') {
      element.addEventListener(name.slice(2), value);
    } else if (value === true) {
      element.setAttribute(name, '');
    } else {
      element.setAttribute(name, String(value));
    }
  }
  append(element, children);
  return element;
}

function append(element, children) {
  for (const child of children) {
    if (child === undefined || child === null || child === false) continue;
    if (Array.isArray(child)) append(element, child);
    else element.append(child instanceof Node ? child : String(child));
  }
}

/** Replaces everything inside `element`. */
export function replace(element, ...children) {
  element.replaceChildren();
  append(element, children);
}

/** A definition list of [term, value] pairs; rows whose value is empty are left out. */
export function facts(pairs) {
  return h('dl', {class: 'facts'}, pairs.filter(([, value]) => value !== undefined && value !== null && value !== '')
    .map(([term, value]) => [h('dt', {}, term), h('dd', {}, value)]));
}

/** A label, a control, and the place the API's error for `field` goes (see showFieldErrors). */
export function field(label, control, hint) {
  const id = control.id;
  const error = h('p', {class: 'field-error', id: `${id}-error`, hidden: true});
  control.setAttribute('aria-describedby', `${id}-error`);
  return h('div', {class: 'field', 'data-field': control.dataset.field ?? ''},
    h('label', {for: id}, label), control, hint ? h('p', {class: 'muted'}, hint) : null, error);
}
